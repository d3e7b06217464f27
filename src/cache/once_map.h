// The memory cache's container: key -> value, where each value is built at most once however
// many threads ask for it at the same time, and a hit takes no lock that a build holds
// (DESIGN: Cache). Used per kernel for signature -> loaded GPU function.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tritium::cache {

// `Hash` and `Equal` may be transparent (is_transparent): then find() takes a cheaper view
// of a key, so a hit builds no Key.
template <typename Key, typename Value, typename Hash = std::hash<Key>,
          typename Equal = std::equal_to<Key>>
class OnceMap {
 public:
  // The value for `key`, building it with `make()` (which returns a Value) on the first
  // request. Concurrent requests for the same key wait for that one build; requests for
  // other keys, and hits, never wait for it. When `make` throws, the exception reaches the
  // caller that ran it and the slot stays empty: the next request builds again. `hit` (when
  // given) says whether the value was there already. The reference stays valid for the
  // map's lifetime, clear() included.
  template <typename Make>
  const Value& get(const Key& key, Make&& make, bool* hit = nullptr) {
    Slot* slot = find(key);
    if (slot != nullptr && slot->ready.load(std::memory_order_acquire)) [[likely]] {
      if (hit) *hit = true;
      return *slot->value;
    }
    if (slot == nullptr) slot = insert(key);
    // The slot's own mutex: only requests for this key wait here.
    std::lock_guard<std::mutex> building(slot->mutex);
    if (slot->ready.load(std::memory_order_acquire)) {
      if (hit) *hit = true;
      return *slot->value;
    }
    if (hit) *hit = false;
    slot->value.emplace(make());
    slot->ready.store(true, std::memory_order_release);
    return *slot->value;
  }

  // The value for `key` (a Key, or a view of one when Hash and Equal are transparent) when
  // it is built, else null. Never waits for a build: the hot path of a hit.
  template <typename K>
  const Value* peek(const K& key) const {
    Slot* slot = find(key);
    return slot != nullptr && slot->ready.load(std::memory_order_acquire) ? &*slot->value
                                                                           : nullptr;
  }

  // Forgets every key. Slots are retired, not destroyed, so references handed out earlier
  // (a launch in another thread) stay valid.
  void clear() {
    std::unique_lock<std::shared_mutex> lock(map_mutex_);
    for (auto& [key, slot] : map_) retired_.push_back(std::move(slot));
    map_.clear();
  }

  size_t size() const {
    std::shared_lock<std::shared_mutex> lock(map_mutex_);
    return map_.size();
  }

 private:
  struct Slot {
    std::mutex mutex;  // held while this key builds
    std::atomic<bool> ready{false};
    std::optional<Value> value;
  };

  template <typename K>
  Slot* find(const K& key) const {
    // The map's lock guards only the table, never a build.
    std::shared_lock<std::shared_mutex> lock(map_mutex_);
    auto it = map_.find(key);
    return it == map_.end() ? nullptr : it->second.get();
  }

  Slot* insert(const Key& key) {
    std::unique_lock<std::shared_mutex> lock(map_mutex_);
    std::unique_ptr<Slot>& slot = map_[key];
    if (!slot) slot = std::make_unique<Slot>();
    return slot.get();
  }

  mutable std::shared_mutex map_mutex_;
  std::unordered_map<Key, std::unique_ptr<Slot>, Hash, Equal> map_;
  std::vector<std::unique_ptr<Slot>> retired_;
};

}  // namespace tritium::cache

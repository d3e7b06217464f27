// tensor_map.h: CUtensorMap encoding and its cache.
#include "runtime/tensor_map.h"

#include <array>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>

#include "runtime/cuda_driver.h"
#include "target/nvptx/shared_tile.h"

namespace tritium::runtime {

namespace {

// cuda.h's CUtensorMapDataType values for the element types a TMA operand may have.
int tma_data_type(ir::ScalarKind k) {
  switch (k) {
    case ir::ScalarKind::F16: return 6;
    case ir::ScalarKind::BF16: return 9;
    case ir::ScalarKind::F32: return 7;
    case ir::ScalarKind::I32: return 3;
    case ir::ScalarKind::U32: return 2;
    case ir::ScalarKind::I16: case ir::ScalarKind::U16: return 1;
    default: return 0;  // 8-bit types (fp8, int8) as UINT8
  }
}

struct alignas(64) TensorMap {
  unsigned char bytes[128];
};

using Key = std::tuple<uint64_t, int, int64_t, int64_t, int64_t, int64_t, int64_t>;

}  // namespace

const void* tensor_map_for(const Arg& arg, ir::ScalarKind dtype, const std::string& kernel) {
  const Arg::Descriptor& d = *arg.descriptor();
  const int64_t element_bytes = ir::bit_width(dtype) / 8;
  const Key key{arg.address(), static_cast<int>(dtype), d.shape[0], d.shape[1], d.strides[0], d.block_shape[0],
                d.block_shape[1]};
  // Bounded: past kMaxMaps the maps move to `retired` (freed at the next turn), so a pointer
  // just handed to a launch in another thread stays valid while it is copied.
  constexpr size_t kMaxMaps = 4096;
  using Maps = std::map<Key, std::unique_ptr<TensorMap>>;
  static std::mutex mutex;
  static auto* maps = new Maps();  // live for the process
  static auto* retired = new Maps();
  std::lock_guard<std::mutex> lock(mutex);
  if (maps->size() >= kMaxMaps) {
    retired->swap(*maps);
    maps->clear();
  }
  auto it = maps->find(key);
  if (it != maps->end()) return it->second->bytes;
  // Innermost dimension first, as the driver counts them; OOB elements read as zero.
  const nvptx::TmaBox box = nvptx::tma_box(d.block_shape[0], d.block_shape[1], element_bytes);
  const uint64_t dims[2] = {static_cast<uint64_t>(d.shape[1]), static_cast<uint64_t>(d.shape[0])};
  const uint64_t strides[1] = {static_cast<uint64_t>(d.strides[0] * element_bytes)};
  const unsigned boxes[2] = {static_cast<unsigned>(box.inner), static_cast<unsigned>(box.outer)};
  const unsigned element_strides[2] = {1, 1};
  const int swizzle = box.swizzle == 128 ? 3 : box.swizzle == 64 ? 2 : 1;
  auto map = std::make_unique<TensorMap>();
  std::memset(map->bytes, 0, sizeof(map->bytes));
  const cuda::Api& api = cuda::driver_if_loaded()->api;
  cuda::check(api.cuTensorMapEncodeTiled(map.get(), tma_data_type(dtype), 2, reinterpret_cast<void*>(arg.address()), dims,
                                         strides, boxes, element_strides, /*interleave=*/0, swizzle,
                                         /*l2 promotion 128B=*/2, /*oob fill zero=*/0),
              "cuTensorMapEncodeTiled", kernel);
  const void* out = map->bytes;
  maps->emplace(key, std::move(map));
  return out;
}

}  // namespace tritium::runtime

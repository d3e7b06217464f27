#!/usr/bin/env bash
# Fetches the real-kernel corpus (tests/realk/run_realk.py) from PyPI: one whole release of
# each project (the releases of tests/realk/RESULTS.md's tables), each archive checked
# against tests/realk/corpus.sha256, and unpacks what the cases import into SRC.
#
#   bash tests/realk/fetch_corpus.sh [--src SRC] [--dl DIR] [--pack] [--update-manifest]
#
# SRC      where the projects' packages go (default build-gpu/realk/src, ignored by git;
#          run_realk.py --src and gpu_compare.sh take it). Each release's folders there are
#          replaced; anything else in SRC is left.
# --dl     where the archives are downloaded (default SRC/../dl); an archive already there
#          whose sha256 matches is not fetched again.
# --pack   also writes SRC/../src.tar.xz (the sources without the parts no case imports, as
#          the GPU machine gets them: gpu_compare.sh unpacks it) and SRC/../deps (the Python
#          3.12 wheels the GPU image lacks: pydantic with what it needs, pyzmq, einops;
#          gpu_compare.sh installs them with --no-index).
# --update-manifest
#          writes tests/realk/corpus.sha256 from the archives fetched (for a new release;
#          otherwise a mismatch stops the script).
#
# Wheels come by `pip download --no-deps` for CPython 3.11 on manylinux x86_64 (sglang's
# wheel is per Python version; the pure-Python files unpacked are the same), sdists likewise
# except mamba-ssm's and flash-attn's: pip prepares an sdist's metadata by running its
# setup.py, and theirs import torch and build CUDA extensions, so those two are fetched from
# the file address PyPI's simple index (the index pip reads) gives, with its sha256.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
SRC="$ROOT/build-gpu/realk/src"
DL=""
PACK=0
UPDATE=0
while [ $# -gt 0 ]; do
  case "$1" in
    --src) SRC="$2"; shift 2 ;;
    --dl) DL="$2"; shift 2 ;;
    --pack) PACK=1; shift ;;
    --update-manifest) UPDATE=1; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
    *) echo "fetch_corpus.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$SRC"
SRC="$(cd "$SRC" && pwd)"
BASE="$(dirname "$SRC")"
DL="${DL:-$BASE/dl}"
mkdir -p "$DL"
MANIFEST="$HERE/corpus.sha256"
PY="${PYTHON:-python3}"

# how  pip requirement  archive  what to unpack
# how: wheel (pip, binary), sdist (pip, source), index (the simple index's file address).
# What to unpack, paths in the archive (an sdist's after its top folder): DIR/ a folder
# whole; DIR/*.py its Python files only; -PATH leaves PATH out. The dist-info folders that
# are unpacked are read by the projects (vLLM reads its own version while it checks Triton's
# drivers; without it every vLLM case falls back to its placeholder).
RELEASES=(
  "wheel liger-kernel==0.8.5 liger_kernel-0.8.5-py3-none-any.whl liger_kernel/"
  "wheel vllm==0.34.0 vllm-0.34.0-cp38-abi3-manylinux_2_28_x86_64.whl vllm/*.py vllm-0.34.0.dist-info/"
  "wheel fla-core==0.6.0 fla_core-0.6.0-py3-none-any.whl fla/"
  "index mamba_ssm==2.3.2.post1 mamba_ssm-2.3.2.post1.tar.gz mamba_ssm/"
  "index flash_attn==2.8.3 flash_attn-2.8.3.tar.gz flash_attn/"
  "wheel sglang==0.5.23 sglang-0.5.23-cp311-cp311-manylinux_2_34_x86_64.whl sglang/*.py"
  "wheel unsloth==2026.10.9 unsloth-2026.10.9-py3-none-any.whl unsloth/"
  "wheel unsloth_zoo==2026.10.9 unsloth_zoo-2026.10.9-py3-none-any.whl unsloth_zoo/ unsloth_zoo_downloads/"
  "wheel flag_gems==5.0.2 flag_gems-5.0.2-py3-none-any.whl flag_gems/ flag_gems-5.0.2.dist-info/"
  "wheel bitsandbytes==0.50.2 bitsandbytes-0.50.2-py3-none-manylinux_2_24_x86_64.whl bitsandbytes/*.py"
  "wheel torchao==0.18.0 torchao-0.18.0-cp310-abi3-manylinux_2_24_x86_64.manylinux_2_28_x86_64.whl torchao/*.py torchao-0.18.0.dist-info/"
  "wheel xformers==0.0.35 xformers-0.0.35-py39-none-manylinux_2_28_x86_64.whl xformers/*.py"
  "wheel flashinfer-python==0.7.2.post1 flashinfer_python-0.7.2.post1-py3-none-any.whl flashinfer/*.py -flashinfer/data/"
  "wheel cut-cross-entropy==25.1.1 cut_cross_entropy-25.1.1-py3-none-any.whl cut_cross_entropy/"
  "wheel sageattention==1.0.6 sageattention-1.0.6-py3-none-any.whl sageattention/"
  "sdist gemlite==0.6.0.post2 gemlite-0.6.0.post2.tar.gz gemlite/"
  "sdist deepspeed==0.19.8 deepspeed-0.19.8.tar.gz deepspeed/"
  "wheel transformer-engine==2.20.2 transformer_engine-2.20.2-py3-none-any.whl transformer_engine/"
)
# The GPU image's missing Python 3.12 wheels (--pack), pinned with what pydantic needs.
DEPS=(pydantic==2.14.4 pydantic-core==2.50.5 annotated-types==0.8.0 typing-extensions==4.16.0
      typing-inspection==0.4.5 pyzmq==27.3.0 einops==0.8.2)

PLATFORMS=(--platform manylinux_2_34_x86_64 --platform manylinux_2_28_x86_64
           --platform manylinux_2_24_x86_64 --platform manylinux2014_x86_64)

expected_sha() {  # the manifest's sha256 of archive $1 (empty when it has none)
  [ -f "$MANIFEST" ] && awk -v f="$1" '$2 == f { print $1 }' "$MANIFEST" || true
}
sha_of() { sha256sum "$1" | awk '{ print $1 }'; }
matches() {  # archive $1 is in DL with the manifest's sha256
  local want; want="$(expected_sha "$1")"
  [ -f "$DL/$1" ] && [ -n "$want" ] && [ "$(sha_of "$DL/$1")" = "$want" ]
}

fetch_index() {  # requirement NAME==VERSION, archive: the file PyPI's simple index lists
  "$PY" - "$1" "$2" "$DL" <<'EOF'
import hashlib, html.parser, os, re, sys, urllib.request
req, archive, dl = sys.argv[1:]
name = re.sub(r"[-_.]+", "-", req.split("==")[0]).lower()
class Links(html.parser.HTMLParser):
    links = []
    def handle_starttag(self, tag, attrs):
        if tag == "a":
            self.links.append(dict(attrs).get("href", ""))
page = Links()
page.feed(urllib.request.urlopen(f"https://pypi.org/simple/{name}/", timeout=120).read().decode())
hits = [h for h in page.links if h.split("#")[0].rsplit("/", 1)[-1] == archive]
if not hits:
    sys.exit(f"{archive}: not in PyPI's simple index for {name}")
url, _, frag = hits[0].partition("#")
data = urllib.request.urlopen(url, timeout=600).read()
listed = dict(p.split("=", 1) for p in frag.split("&") if "=" in p).get("sha256")
if listed and hashlib.sha256(data).hexdigest() != listed:
    sys.exit(f"{archive}: sha256 differs from the one PyPI's index lists")
with open(os.path.join(dl, archive + ".part"), "wb") as f:
    f.write(data)
os.replace(os.path.join(dl, archive + ".part"), os.path.join(dl, archive))
EOF
}

fetch() {  # how, requirement, archive
  local how="$1" req="$2" archive="$3"
  if matches "$archive"; then return 0; fi
  rm -f "$DL/$archive"
  case "$how" in
    wheel) pip download -q --no-deps --only-binary=:all: --python-version 3.11 "${PLATFORMS[@]}" \
             -d "$DL" "$req" ;;
    sdist) pip download -q --no-deps --no-binary=:all: -d "$DL" "$req" ;;
    index) fetch_index "$req" "$archive" ;;
  esac
  if [ ! -f "$DL/$archive" ]; then
    echo "fetch_corpus.sh: pip did not save $archive for $req (saved: $(ls "$DL" | tr '\n' ' '))" >&2
    exit 1
  fi
}

check() {  # archive: its sha256 against the manifest (or recorded with --update-manifest)
  local archive="$1" got want
  got="$(sha_of "$DL/$archive")"
  want="$(expected_sha "$archive")"
  if [ "$UPDATE" = 1 ]; then
    echo "$got  $archive" >> "$MANIFEST.new"
  elif [ -z "$want" ]; then
    echo "fetch_corpus.sh: $archive is not in $MANIFEST (--update-manifest records it)" >&2; exit 1
  elif [ "$got" != "$want" ]; then
    echo "fetch_corpus.sh: $archive has sha256 $got, the manifest says $want" >&2; exit 1
  fi
}

unpack() {  # archive, what to unpack ...: into SRC
  "$PY" - "$DL/$1" "$SRC" "${@:2}" <<'EOF'
import os, shutil, sys, tarfile, zipfile
archive, dest, specs = sys.argv[1], sys.argv[2], sys.argv[3:]
if archive.endswith(".whl"):
    z = zipfile.ZipFile(archive)
    members = [(i.filename, i) for i in z.infolist() if not i.is_dir()]
    read = lambda m: z.read(m)
else:  # an sdist: paths after its top folder
    t = tarfile.open(archive)
    members = [(m.name.split("/", 1)[1], m) for m in t.getmembers() if m.isfile() and "/" in m.name]
    read = lambda m: t.extractfile(m).read()
takes = [s for s in specs if not s.startswith("-")]
leaves = [s[1:] for s in specs if s.startswith("-")]
for s in takes:  # each folder taken is replaced whole
    top = os.path.join(dest, s.split("/")[0])
    if os.path.isdir(top):
        shutil.rmtree(top)
def wanted(path):
    if any(path.startswith(l) for l in leaves) or "__pycache__" in path.split("/"):
        return False
    for s in takes:
        if s.endswith("/*.py"):
            if path.startswith(s[:-4]) and path.endswith(".py"):
                return True
        elif path.startswith(s):
            return True
    return False
n = 0
for path, m in members:
    if not wanted(path):
        continue
    out = os.path.join(dest, path)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "wb") as f:
        f.write(read(m))
    n += 1
if n == 0:
    sys.exit(f"{archive}: nothing matched {specs}")
print(f"  {os.path.basename(archive)}: {n} files")
EOF
}

rm -f "$MANIFEST.new"
for r in "${RELEASES[@]}"; do
  read -r how req archive what <<< "$r"
  echo "== $req"
  fetch "$how" "$req" "$archive"
  check "$archive"
  # shellcheck disable=SC2086  # (the paths to unpack are words)
  unpack "$archive" $what
done
echo "unpacked into $SRC: $(du -sh "$SRC" | cut -f1)"

finish() {  # with --update-manifest: the new manifest (the deps' lines kept without --pack)
  if [ "$UPDATE" = 1 ]; then
    if [ "$PACK" = 0 ] && [ -f "$MANIFEST" ]; then grep '  deps/' "$MANIFEST" >> "$MANIFEST.new" || true; fi
    mv "$MANIFEST.new" "$MANIFEST"
    echo "wrote $MANIFEST"
  fi
}
[ "$PACK" = 1 ] || { finish; exit 0; }

# src.tar.xz: without sglang's models, tests and benchmarks, FlagGems' other vendors'
# backends, and all of bitsandbytes and FlashInfer but the files the cases import
# (FlashInfer's Python alone is 81 MB). Unpacked, the rest is about 170 MB, over the 64 MiB a
# device command may carry; packed about 20 MB.
S="$(basename "$SRC")"
F="$S/flashinfer/experimental/b12x"
M="$S/flashinfer/fused_moe/cute_dsl/blackwell_sm12x"
echo "== $BASE/src.tar.xz"
rm -f "$BASE/src.tar" "$BASE/src.tar.xz"
tar -C "$BASE" -cf "$BASE/src.tar" --exclude=__pycache__ --exclude="$S/sglang/multimodal_gen" \
  --exclude="$S/sglang/test" --exclude="$S/sglang/benchmark" --exclude="$S/sglang/srt/models" \
  --exclude="$S/flag_gems/runtime/backend/_[a-mo-z]*" --exclude="$S/bitsandbytes" \
  --exclude="$S/flashinfer" "$S"
tar -C "$BASE" -rf "$BASE/src.tar" --exclude=__pycache__ \
  "$S/bitsandbytes/__init__.py" "$S/bitsandbytes/backends/__init__.py" "$S/bitsandbytes/backends/triton" \
  "$S/flashinfer/triton" "$S/flashinfer/kda_kernels/ptx/recurrent_kernel.py" "$F/_lib/__init__.py" \
  "$F/_lib/runtime_control.py" "$F/attention/dsa_indexer/schedule_metadata.py" \
  "$F/gemm/blockscaled/_quantize.py" "$F/loader/_gds_kernels.py" "$F/moe/_shared/routing.py" \
  "$F/moe/calibration.py" "$M/_moe_utils/moe_route_meta.py" "$M/moe_mxfp8_q0_route_triton.py"
xz -9 -T1 "$BASE/src.tar"  # (one thread: one block, 1.4 MB smaller than -T2 makes it)
echo "  $(du -h "$BASE/src.tar.xz" | cut -f1)"

echo "== $BASE/deps"
rm -rf "$BASE/deps"
pip download -q --no-deps --only-binary=:all: --python-version 3.12 --platform manylinux2014_x86_64 \
  --platform manylinux_2_28_x86_64 -d "$BASE/deps" "${DEPS[@]}"
for w in "$BASE"/deps/*.whl; do
  got="$(sha_of "$w")" want="$(expected_sha "deps/$(basename "$w")")"
  if [ "$UPDATE" = 1 ]; then
    echo "$got  deps/$(basename "$w")" >> "$MANIFEST.new"
  elif [ "$got" != "$want" ]; then
    echo "fetch_corpus.sh: deps/$(basename "$w") has sha256 $got, the manifest says ${want:-nothing}" >&2; exit 1
  fi
done
echo "  $(ls "$BASE/deps" | wc -l) wheels, $(du -sh "$BASE/deps" | cut -f1)"
finish

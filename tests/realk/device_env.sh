# Sourced on the GPU machine before the fetched projects run there (tests/realk/gpu_compare.sh,
# benchmarks/bench_projects.py through tests/gpu/run_on_device.sh): unpacks the carried
# build-gpu/realk/src.tar.xz when the folder is not there yet, and installs the carried wheels
# of build-gpu/realk/deps the image lacks (pydantic and pyzmq, which vLLM's fused_moe and fp8
# modules import, einops for mamba-ssm and fla) into /tmp/realk-site, on PYTHONPATH.
# $1: the projects' folder (default build-gpu/realk/src); $2: the Python (default python3).
realk_src="${1:-build-gpu/realk/src}"
realk_py="${2:-python3}"
if [ ! -d "$realk_src" ] && [ -f build-gpu/realk/src.tar.xz ] && [ "$realk_src" = build-gpu/realk/src ]; then
  tar -xJf build-gpu/realk/src.tar.xz -C build-gpu/realk
fi
if [ -d build-gpu/realk/deps ] && ! "$realk_py" -c "import pydantic, zmq, einops" 2>/dev/null; then
  "$realk_py" -m pip install -q --no-index --no-deps --no-compile --target /tmp/realk-site \
    build-gpu/realk/deps/*.whl && export PYTHONPATH="/tmp/realk-site${PYTHONPATH:+:$PYTHONPATH}"
fi

#!/bin/sh
set -e
# Static layer libraries from a build tree (BUILD, default build) of this repository.
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
B=${BUILD:-$ROOT/build}/src
LIBS="$B/target/nvptx/libtritium_nvptx.a $B/lower/libtritium_lower.a $B/frontend/libtritium_frontend.a $B/transforms/libtritium_transforms.a $B/analysis/libtritium_analysis.a $B/ir/libtritium_ir.a $B/support/libtritium_support.a"
LLVM="-L/usr/lib/llvm-22/lib $(/usr/lib/llvm-22/bin/llvm-config --link-static --libs analysis codegen core mc passes support target nvptxcodegen nvptxdesc nvptxinfo) -lrt -ldl -lm -lz -lzstd -lpthread"
g++ -std=gnu++20 -O1 -Wall -Wextra -I$ROOT/include -I$ROOT/src -c gen.cpp -o gen.o
g++ -o gen gen.o $LIBS $LLVM

// The translation unit of libtritium.so itself: the library is the layer archives linked
// in whole (src/runtime/CMakeLists.txt); its exports are listed in tritium.map.
#include "tritium/tritium.h"

// Whether this process can see a CUDA device, without linking libcuda (DESIGN law 5): the
// driver is opened at run time. The launcher of the GPU issue replaces this probe.
#pragma once

namespace tritium::runtime {

// True when libcuda loads, initializes and reports at least one device. Computed once.
bool cuda_device_present();

}  // namespace tritium::runtime

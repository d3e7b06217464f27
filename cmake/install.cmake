# `cmake --install build [--prefix P]`: the C++ library for find_package(tritium) users
# (lib/libtritium.so, include/tritium/*.h, lib/cmake/tritium/) and the `tritium` CLI
# (bin/tritium). The Python wheel installs its own files instead (python/CMakeLists.txt,
# component `python`, under scikit-build-core only).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(TRITIUM_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/tritium)
install(TARGETS tritium EXPORT tritiumTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT devel)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/tritium
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT devel)
set_target_properties(tritium_cli PROPERTIES INSTALL_RPATH "$ORIGIN/../${CMAKE_INSTALL_LIBDIR}")
install(TARGETS tritium_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT devel)
install(EXPORT tritiumTargets NAMESPACE tritium:: DESTINATION ${TRITIUM_CMAKE_DIR}
        COMPONENT devel)
configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/tritiumConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/tritiumConfig.cmake
  INSTALL_DESTINATION ${TRITIUM_CMAKE_DIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR)
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/cmake/tritiumConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/tritiumConfig.cmake
              ${PROJECT_BINARY_DIR}/cmake/tritiumConfigVersion.cmake
        DESTINATION ${TRITIUM_CMAKE_DIR} COMPONENT devel)

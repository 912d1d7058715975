# Installation extras and the Debian package. Included at the end of the top-level CMakeLists.txt:
#   include(cmake/MemWallPackaging.cmake)
#
# `cmake --install BUILD --prefix PREFIX` lays out (the other rules live beside their targets):
#   bin/memwall                                        app/CMakeLists.txt
#   share/applications/org.memwall.MemWall.desktop     resources/CMakeLists.txt
#   share/metainfo/org.memwall.MemWall.metainfo.xml    resources/CMakeLists.txt
#   share/icons/hicolor/scalable/apps/org.memwall.MemWall.svg   resources/CMakeLists.txt
#   share/icons/hicolor/NxN/apps/org.memwall.MemWall.png        here (rendered from memwall.svg)
#   share/memwall/presets/{hardware,models,trends}/*.json       presets/CMakeLists.txt
# `cpack -G DEB` (in the build folder) builds memwall_VERSION_ARCH.deb from the same rules.

foreach(size 16 24 32 48 64 128 256)
  set(icon "${PROJECT_SOURCE_DIR}/resources/icons/memwall-${size}.png")
  if(EXISTS "${icon}")
    install(FILES "${icon}" DESTINATION "${CMAKE_INSTALL_DATADIR}/icons/hicolor/${size}x${size}/apps"
            RENAME org.memwall.MemWall.png)
  endif()
endforeach()

set(MEMWALL_PACKAGE_MAINTAINER "MemWall developers <maintainers@memwall.invalid>"
    CACHE STRING "Maintainer field of the Debian package (Name <email>)")

set(CPACK_PACKAGE_NAME "memwall")
set(CPACK_PACKAGE_VENDOR "MemWall")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "See the AI memory wall: rooflines, memory hierarchies and KV caches of AI hardware")
string(CONCAT CPACK_PACKAGE_DESCRIPTION
    "MemWall shows where a transformer's work lands on a device's roofline, what fills each level of its memory "
    "hierarchy, how batch size, sequence length, precision and parallelism move both, and why compute has outgrown "
    "memory and interconnect bandwidth. Desktop application plus a command line for analyses, sweeps and chart "
    "exports; device and model presets with a public source for every number.")
set(CPACK_PACKAGE_CONTACT "${MEMWALL_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_INSTALL_DIRECTORY "memwall")
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
set(CPACK_STRIP_FILES ON)
if(EXISTS "${PROJECT_SOURCE_DIR}/LICENSE")
  set(CPACK_RESOURCE_FILE_LICENSE "${PROJECT_SOURCE_DIR}/LICENSE")
endif()

set(CPACK_GENERATOR "DEB")
set(CPACK_DEBIAN_PACKAGE_NAME "memwall")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT) # memwall_0.1.0_amd64.deb
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${MEMWALL_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SECTION "science")
set(CPACK_DEBIAN_PACKAGE_PRIORITY "optional")
# The Qt modules loaded at run time; dpkg-shlibdeps (when present) adds the exact library versions it finds.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libqt6widgets6, libqt6charts6, libqt6svg6, libqt6printsupport6, qt6-qpa-plugins")
# The Python module (lib/python3/dist-packages/memwall) is for Debian's python3; numpy gives its sweeps as arrays.
if(MEMWALL_PYTHON)
  string(APPEND CPACK_DEBIAN_PACKAGE_DEPENDS ", python3")
  set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "python3-numpy")
endif()
find_program(MEMWALL_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(MEMWALL_DPKG_SHLIBDEPS)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
endif()

# Source packages are not built from here (use git archive); keep build trees out of any that are.
set(CPACK_SOURCE_IGNORE_FILES "/\\\\.git/" "/build/" "/\\\\.cache/")

include(CPack)

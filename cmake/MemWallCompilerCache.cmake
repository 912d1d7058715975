# Compiles through ccache when it is installed (cmake/install-deps.sh installs it): CI builds three trees from a fresh
# clone (tests, ASan, fuzzers), and a cache kept in the user's home between clones turns most of each into look-ups.
# ccache keys each object on the preprocessed source, the compiler and its flags, so a hit is the object the compiler
# would have written. The settings make hits survive a clone at another path and the precompiled headers:
#   CCACHE_BASEDIR     paths under the source folder are hashed relative to it;
#   CCACHE_NOHASHDIR   the working directory is not hashed (the -g trees name it in their debug info only);
#   CCACHE_SLOPPINESS  pch_defines and time_macros, which ccache requires before it caches a compile that includes a
#                      precompiled header; include_file_mtime and include_file_ctime, because every file of a fresh
#                      clone is newer than ccache's guard against headers edited during the compile.
# -DMEMWALL_CCACHE=OFF, or a CMAKE_CXX_COMPILER_LAUNCHER of one's own, turns it off.
option(MEMWALL_CCACHE "Compile through ccache when it is installed" ON)
find_program(MEMWALL_CCACHE_PROGRAM ccache)
if(MEMWALL_CCACHE AND MEMWALL_CCACHE_PROGRAM AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(CMAKE_CXX_COMPILER_LAUNCHER
      "${CMAKE_COMMAND};-E;env;CCACHE_BASEDIR=${CMAKE_SOURCE_DIR};CCACHE_NOHASHDIR=true"
      "CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime;${MEMWALL_CCACHE_PROGRAM}")
  message(STATUS "Compiling through ${MEMWALL_CCACHE_PROGRAM}")
endif()

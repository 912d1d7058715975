# Compile time. A clean build of everything (the libraries, the app and 35 test suites) is what CI pays twice, plain
# and under the sanitizers, on 2 cores; two measures halve it:
# - Unity builds of memwall_core, memwall_ui and the app (memwall_use_unity_build): each batch of 8 files parses
#   nlohmann/json and the Qt Widgets/Charts headers once and instantiates their templates once. Needs every file's
#   file-local names (anonymous namespaces) to differ from its neighbours'; shared helpers live in ui/util/text.h,
#   core/util/enumnames.h and app/cli.h. -DMEMWALL_UNITY_BUILD=OFF compiles file by file (CI's includes check does).
# - Precompiled headers for the test suites (tests/CMakeLists.txt): QtTest pulls in all of QtCore, and the UI suites
#   Qt Widgets and Charts besides. -DCMAKE_DISABLE_PRECOMPILE_HEADERS=ON turns them off.
set(MEMWALL_PCH_STD <algorithm> <cmath> <functional> <map> <memory> <optional> <string> <string_view> <vector>)
set(MEMWALL_PCH_CORE <nlohmann/json.hpp> ${MEMWALL_PCH_STD})
set(MEMWALL_PCH_UI <QtWidgets> <QtCharts> ${MEMWALL_PCH_CORE})

# memwall_use_unity_build(target): compiles `target` in unity batches when MEMWALL_UNITY_BUILD is on.
function(memwall_use_unity_build target)
  set_target_properties(${target} PROPERTIES UNITY_BUILD ${MEMWALL_UNITY_BUILD} UNITY_BUILD_BATCH_SIZE 8)
endfunction()

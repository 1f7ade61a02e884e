# ctest checks of the monitoring artefacts: Prometheus rules (promtool check/test, conventions and
# coverage), Grafana dashboards (conventions, promtool syntax, a real Prometheus scraping synthetic
# exporters), the systemd unit (systemd-analyze verify/security) and the installed tree.
# Included from the top-level CMakeLists.txt inside if(RXE_BUILD_TESTS). Labels: monitoring + one
# of rules, dashboards, systemd, install. Run: ctest --test-dir build -L monitoring
include(${CMAKE_CURRENT_LIST_DIR}/InstallDirs.cmake)
find_program(RXE_PYTHON3 python3 REQUIRED)
find_program(RXE_PROMTOOL promtool)
find_program(RXE_PROMETHEUS prometheus)
find_program(RXE_SYSTEMD_ANALYZE systemd-analyze)
find_program(RXE_JQ jq)
if(NOT RXE_PROMTOOL OR NOT RXE_PROMETHEUS OR NOT RXE_SYSTEMD_ANALYZE OR NOT RXE_JQ)
  message(WARNING "rxe_exporter checks: promtool, prometheus, systemd-analyze or jq missing "
                  "(scripts/install-deps.sh installs them); those tests fail")
endif()

set(RXE_DASH_DIR ${CMAKE_SOURCE_DIR}/dashboards)
file(GLOB RXE_CHECK_RULE_FILES CONFIGURE_DEPENDS ${RXE_DASH_DIR}/rules/*.yml)
file(GLOB RXE_CHECK_RULE_TESTS CONFIGURE_DEPENDS ${RXE_DASH_DIR}/tests/*.yml)

function(rxe_check name label)
  add_test(NAME ${name} ${ARGN})
  set_tests_properties(${name} PROPERTIES LABELS "monitoring;${label}" TIMEOUT 300 SKIP_RETURN_CODE 77)
endfunction()

# --- Prometheus rules ---------------------------------------------------------------------------
rxe_check(rules.check rules
  COMMAND ${RXE_PROMTOOL} check rules --lint=all --lint-fatal ${RXE_CHECK_RULE_FILES})
foreach(test_file ${RXE_CHECK_RULE_TESTS})
  get_filename_component(test_name ${test_file} NAME_WE)
  rxe_check(rules.test.${test_name} rules
    COMMAND ${RXE_PROMTOOL} test rules ${test_file} WORKING_DIRECTORY ${RXE_DASH_DIR}/tests)
endforeach()
rxe_check(rules.generated rules
  COMMAND ${RXE_PYTHON3} ${RXE_DASH_DIR}/tools/generate_rules.py --check)
rxe_check(rules.selector rules
  COMMAND ${RXE_DASH_DIR}/tools/check_rules_selector.sh ${RXE_PROMTOOL} ${RXE_PYTHON3})
rxe_check(rules.conventions rules
  COMMAND ${RXE_PYTHON3} ${RXE_DASH_DIR}/tools/check_rules.py --rules "${RXE_DASH_DIR}/rules/*.yml"
          --tests "${RXE_DASH_DIR}/tests/*.yml" --runbook ${CMAKE_SOURCE_DIR}/docs/runbook.md)

# --- Grafana dashboards -------------------------------------------------------------------------
rxe_check(dashboards.generated dashboards
  COMMAND ${RXE_PYTHON3} ${RXE_DASH_DIR}/tools/generate_dashboards.py --check)
rxe_check(dashboards.check dashboards
  COMMAND ${RXE_PYTHON3} ${RXE_DASH_DIR}/tools/check_dashboards.py --promtool ${RXE_PROMTOOL})
rxe_check(dashboards.prometheus_synthetic dashboards
  COMMAND ${RXE_DASH_DIR}/tools/prometheus_synthetic_test.sh ${RXE_PROMETHEUS})
set_tests_properties(dashboards.prometheus_synthetic PROPERTIES ENVIRONMENT "PYTHON=${RXE_PYTHON3}")

# --- Peer discovery: one file_sd file for Prometheus and the mesh (issue 15) --------------------
rxe_check(discovery.file_sd_prometheus discovery
  COMMAND ${CMAKE_SOURCE_DIR}/tests/config/file_sd_prometheus.sh ${CMAKE_SOURCE_DIR}
          ${RXE_PROMTOOL} ${RXE_PROMETHEUS})

# --- systemd unit and installation (need the built binary) --------------------------------------
# A no-op when the build is up to date (scripts/test.sh builds first); builds the daemon otherwise.
add_test(NAME monitoring.build_rxe_exporter
  COMMAND ${CMAKE_COMMAND} --build ${CMAKE_BINARY_DIR} --target rxe_exporter)
set_tests_properties(monitoring.build_rxe_exporter PROPERTIES
  LABELS "monitoring;systemd;install" TIMEOUT 900 FIXTURES_SETUP rxe_exporter_binary RESOURCE_LOCK rxe_build)

rxe_check(systemd.unit systemd
  COMMAND ${CMAKE_SOURCE_DIR}/systemd/check_unit.sh ${CMAKE_BINARY_DIR}/systemd/rxe_exporter.service
          $<TARGET_FILE:rxe_exporter> 25)
set_tests_properties(systemd.unit PROPERTIES FIXTURES_REQUIRED rxe_exporter_binary)

rxe_check(systemd.rxe_link systemd
  COMMAND ${CMAKE_SOURCE_DIR}/systemd/check_rxe_link.sh ${CMAKE_BINARY_DIR}/systemd/rxe-link@.service
          ${CMAKE_SOURCE_DIR}/systemd/rxe-link.sh)

rxe_check(install.layout install
  COMMAND ${CMAKE_SOURCE_DIR}/cmake/check_install.sh ${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR}
          ${CMAKE_INSTALL_PREFIX} ${CMAKE_INSTALL_FULL_SYSCONFDIR} ${RXE_SYSTEMD_UNIT_DIR}
          ${CMAKE_INSTALL_FULL_DOCDIR} ${CMAKE_INSTALL_FULL_LIBEXECDIR} ${RXE_PROMTOOL})
set_tests_properties(install.layout PROPERTIES FIXTURES_REQUIRED rxe_exporter_binary RESOURCE_LOCK rxe_build)

# --- Debian package (label package) -------------------------------------------------------------
# package.deb: dpkg-buildpackage -b of a copy of the tree in <build>/package (its own build with
# dpkg-buildflags' hardening, ~100 compilations; ccache when installed), then lintian with no error
# and no warning allowed. package.lifecycle: install, start, scrape, upgrade, remove and purge in
# a lab VM on a real rdma_rxe (cmake/package/lifecycle.sh). Run through the lab lock:
#   /tmp/lab-lock.sh ctest --test-dir build -L package --output-on-failure
add_test(NAME package.deb
  COMMAND ${CMAKE_SOURCE_DIR}/cmake/package/build_deb.sh ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR}/package)
set_tests_properties(package.deb PROPERTIES LABELS package TIMEOUT 3600 FIXTURES_SETUP rxe_deb
  RESOURCE_LOCK rxe_build)
add_test(NAME package.lifecycle
  COMMAND ${CMAKE_SOURCE_DIR}/tests/lab/run-case.sh ${CMAKE_SOURCE_DIR}/cmake/package/lifecycle.sh
          ${CMAKE_BINARY_DIR})
set_tests_properties(package.lifecycle PROPERTIES LABELS package TIMEOUT 900 RUN_SERIAL TRUE
  RESOURCE_LOCK rxe_lab FIXTURES_REQUIRED rxe_deb)

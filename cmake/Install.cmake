# Installation layout (FHS) and the Debian package. Included at the end of the top-level
# CMakeLists.txt. The binary itself is installed by exporter/CMakeLists.txt.
#
#   <prefix>/bin/rxe_exporter
#   <prefix>/lib/systemd/system/rxe_exporter.service      (RXE_SYSTEMD_UNIT_DIR)
#   <sysconfdir>/rxe_exporter/rxe_exporter.yml             (from config/examples/rxe_exporter.yml)
#   <sysconfdir>/default/rxe_exporter                      (ARGS=)
#   <prefix>/share/rxe_exporter/dashboards/*.json
#   <prefix>/share/rxe_exporter/rules/*.yml                (runbook links set from RXE_RUNBOOK_URL)
#   <prefix>/share/rxe_exporter/grafana/provisioning/{datasources,dashboards}/rxe_exporter.yml
#   <prefix>/share/doc/rxe_exporter/{README.md,*.md,dashboards.md,examples/}
# <sysconfdir> is /etc for CMAKE_INSTALL_PREFIX=/usr (GNUInstallDirs), else <prefix>/etc.
# Package: cmake -S . -B build-deb -DCMAKE_INSTALL_PREFIX=/usr && cmake --build build-deb &&
#          (cd build-deb && cpack -G DEB)
include(${CMAKE_CURRENT_LIST_DIR}/InstallDirs.cmake)
# As written in the repository's files; replaced in the installed copies.
set(RXE_SOURCE_RUNBOOK_URL "file:///usr/share/doc/rxe_exporter/runbook.md")
set(RXE_SOURCE_DASHBOARDS_PATH "/usr/share/rxe_exporter/dashboards")

# Copies SRC to DST replacing FROM by TO; re-run when SRC changes.
function(rxe_copy_replacing src dst from to)
  file(READ ${src} text)
  string(REPLACE "${from}" "${to}" text "${text}")
  set(old "")
  if(EXISTS ${dst})
    file(READ ${dst} old)
  endif()
  if(NOT old STREQUAL text)  # keep the timestamp when nothing changed
    file(WRITE ${dst} "${text}")
  endif()
  set_property(DIRECTORY ${CMAKE_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${src})
endfunction()

# --- systemd ------------------------------------------------------------------------------------
set(RXE_BINDIR ${CMAKE_INSTALL_FULL_BINDIR})
set(RXE_SYSCONFDIR ${CMAKE_INSTALL_FULL_SYSCONFDIR})
set(RXE_DOCDIR ${CMAKE_INSTALL_FULL_DOCDIR})
configure_file(${CMAKE_SOURCE_DIR}/systemd/rxe_exporter.service.in
               ${CMAKE_BINARY_DIR}/systemd/rxe_exporter.service @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/systemd/rxe_exporter.service DESTINATION ${RXE_SYSTEMD_UNIT_DIR})
install(FILES ${CMAKE_SOURCE_DIR}/systemd/rxe_exporter.default
        DESTINATION ${CMAKE_INSTALL_FULL_SYSCONFDIR}/default RENAME rxe_exporter)

# --- configuration ------------------------------------------------------------------------------
# config/examples/ is globbed so that files added later are picked up (re-run cmake).
file(GLOB RXE_CONFIG_EXAMPLES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/config/examples/*)
if(RXE_CONFIG_EXAMPLES)
  install(FILES ${RXE_CONFIG_EXAMPLES} DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)
endif()
if(EXISTS ${CMAKE_SOURCE_DIR}/config/examples/rxe_exporter.yml)
  # 0644: read by the service's dynamic user. Keep secrets out of it (see the unit's LoadCredential=).
  install(FILES ${CMAKE_SOURCE_DIR}/config/examples/rxe_exporter.yml DESTINATION ${RXE_CONFIG_DIR})
endif()

# --- dashboards, rules, Grafana provisioning ----------------------------------------------------
file(GLOB RXE_DASHBOARDS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/dashboards/*.json)
install(FILES ${RXE_DASHBOARDS} DESTINATION ${RXE_DATA_DIR}/dashboards)

file(GLOB RXE_RULE_FILES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/dashboards/rules/*.yml)
foreach(rules ${RXE_RULE_FILES})
  get_filename_component(name ${rules} NAME)
  rxe_copy_replacing(${rules} ${CMAKE_BINARY_DIR}/dashboards/rules/${name}
                     "${RXE_SOURCE_RUNBOOK_URL}" "${RXE_RUNBOOK_URL}")
  install(FILES ${CMAKE_BINARY_DIR}/dashboards/rules/${name} DESTINATION ${RXE_DATA_DIR}/rules)
endforeach()

foreach(kind datasources dashboards)
  rxe_copy_replacing(${CMAKE_SOURCE_DIR}/dashboards/provisioning/${kind}/rxe_exporter.yml
                     ${CMAKE_BINARY_DIR}/dashboards/provisioning/${kind}/rxe_exporter.yml
                     "${RXE_SOURCE_DASHBOARDS_PATH}" "${CMAKE_INSTALL_FULL_DATADIR}/rxe_exporter/dashboards")
  install(FILES ${CMAKE_BINARY_DIR}/dashboards/provisioning/${kind}/rxe_exporter.yml
          DESTINATION ${RXE_DATA_DIR}/grafana/provisioning/${kind})
endforeach()

# --- documentation ------------------------------------------------------------------------------
file(GLOB RXE_DOCS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/README.md ${CMAKE_SOURCE_DIR}/docs/*.md)
install(FILES ${RXE_DOCS} DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES ${CMAKE_SOURCE_DIR}/dashboards/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR} RENAME dashboards.md)

# --- Debian package (CPack) ---------------------------------------------------------------------
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME rxe-exporter)
set(CPACK_PACKAGE_VENDOR "rxe_exporter maintainers")
set(CPACK_PACKAGE_CONTACT "rxe_exporter maintainers <maintainers@users.noreply.a-seed-843da0b6.example>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "Prometheus exporter for RDMA (Soft-RoCE/RoCE) port counters and RDMA probes")
set(CPACK_PACKAGE_DESCRIPTION
    "rxe_exporter exports RDMA port counters (rxe hw_counters, RDMA netlink, sysfs), port and netdev
 state, and runs perftest-style RDMA bandwidth and latency probes between peers. Ships a hardened
 systemd unit, Grafana dashboards and Prometheus alerting rules.")
set(CPACK_PACKAGING_INSTALL_PREFIX ${CMAKE_INSTALL_PREFIX})
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "file://${CMAKE_INSTALL_FULL_DOCDIR}/README.md")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION TRUE)
# Shared-library dependencies from dpkg-shlibdeps when available (dpkg-dev); the rxe verbs
# provider is loaded with dlopen(), so ibverbs-providers is listed explicitly.
find_program(RXE_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(RXE_DPKG_SHLIBDEPS)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "ibverbs-providers")
else()
  set(CPACK_DEBIAN_PACKAGE_DEPENDS
      "libibverbs1, ibverbs-providers, libnl-3-200, libnl-route-3-200, libyaml-cpp0.7, \
libprometheus-cpp-core1.0, libspdlog1.10, libfmt9, libsystemd0, libssl3, libcrypt1, libstdc++6, libc6")
endif()
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "rdma-core, iproute2")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "prometheus, grafana, perftest")
# conffiles, and daemon-reload on install/remove (the unit is not enabled automatically: probing
# peers needs a configuration first).
set(RXE_DEB_CONTROL_DIR ${CMAKE_BINARY_DIR}/debian-control)
file(CONFIGURE OUTPUT ${RXE_DEB_CONTROL_DIR}/conffiles CONTENT
"${RXE_CONFIG_DIR}/rxe_exporter.yml
${CMAKE_INSTALL_FULL_SYSCONFDIR}/default/rxe_exporter
")
foreach(script postinst postrm)
  file(CONFIGURE OUTPUT ${RXE_DEB_CONTROL_DIR}/${script} CONTENT
"#!/bin/sh
set -e
if [ -d /run/systemd/system ]; then
  systemctl --system daemon-reload >/dev/null || true
fi
exit 0
")
  file(CHMOD ${RXE_DEB_CONTROL_DIR}/${script} PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE
       GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
endforeach()
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    "${RXE_DEB_CONTROL_DIR}/conffiles;${RXE_DEB_CONTROL_DIR}/postinst;${RXE_DEB_CONTROL_DIR}/postrm")
if(NOT CMAKE_INSTALL_PREFIX STREQUAL "/usr")
  message(STATUS "rxe_exporter: CMAKE_INSTALL_PREFIX is ${CMAKE_INSTALL_PREFIX}; "
                 "configure with -DCMAKE_INSTALL_PREFIX=/usr to build a Debian package")
endif()
include(CPack)

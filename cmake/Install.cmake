# Installation layout (FHS) and the Debian package. Included at the end of the top-level
# CMakeLists.txt. The binary itself is installed by exporter/CMakeLists.txt.
#
#   <prefix>/bin/rxe_exporter
#   <prefix>/lib/systemd/system/rxe_exporter.service      (RXE_SYSTEMD_UNIT_DIR)
#   <prefix>/lib/systemd/system/rxe-link@.service         (Soft-RoCE link oneshot, instance = netdev)
#   <prefix>/libexec/rxe-exporter/rxe-link                (its ExecStart/ExecStop)
#   <sysconfdir>/rxe_exporter/rxe_exporter.yml             (from config/examples/rxe_exporter.yml)
#   <sysconfdir>/default/rxe_exporter                      (ARGS=)
#   <prefix>/share/rxe_exporter/dashboards/*.json
#   <prefix>/share/rxe_exporter/rules/*.yml                (runbook links set from RXE_RUNBOOK_URL)
#   <prefix>/share/rxe_exporter/grafana/provisioning/{datasources,dashboards}/rxe_exporter.yml
#   <prefix>/share/doc/rxe-exporter/{README.md,*.md,dashboards.md,examples/}   (the package's name)
# <sysconfdir> is /etc for CMAKE_INSTALL_PREFIX=/usr (GNUInstallDirs), else <prefix>/etc.
# The Debian package is built by debian/ (dpkg-buildpackage), not by CPack.
include(${CMAKE_CURRENT_LIST_DIR}/InstallDirs.cmake)
# As written in the repository's files; replaced in the installed copies.
set(RXE_SOURCE_RUNBOOK_URL "https://rxe-exporter.example/docs/runbook.md")  # generate_rules.py default
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
set(RXE_LIBEXECDIR ${CMAKE_INSTALL_FULL_LIBEXECDIR}/${RXE_PACKAGE_NAME})
configure_file(${CMAKE_SOURCE_DIR}/systemd/rxe_exporter.service.in
               ${CMAKE_BINARY_DIR}/systemd/rxe_exporter.service @ONLY)
configure_file(${CMAKE_SOURCE_DIR}/systemd/rxe-link@.service.in
               ${CMAKE_BINARY_DIR}/systemd/rxe-link@.service @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/systemd/rxe_exporter.service ${CMAKE_BINARY_DIR}/systemd/rxe-link@.service
        DESTINATION ${RXE_SYSTEMD_UNIT_DIR})
install(PROGRAMS ${CMAKE_SOURCE_DIR}/systemd/rxe-link.sh DESTINATION ${RXE_LIBEXECDIR} RENAME rxe-link)
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

# --- Debian package ----------------------------------------------------------------------------
# debian/ (debhelper): dpkg-buildpackage -b configures with -DCMAKE_INSTALL_PREFIX=/usr and
# -DRXE_SYSTEMD_UNIT_DIR=/lib/systemd/system and installs through this file; see README "Install".

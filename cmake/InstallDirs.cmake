# Install locations shared by Install.cmake and Checks.cmake.
include_guard(GLOBAL)
set(RXE_PACKAGE_NAME rxe-exporter)  # the Debian package; also names the doc and libexec dirs
# Before GNUInstallDirs, whose default would be share/doc/rxe_exporter (the project's name).
set(CMAKE_INSTALL_DOCDIR "share/doc/${RXE_PACKAGE_NAME}" CACHE PATH "documentation root (DATAROOTDIR/doc/rxe-exporter)")
include(GNUInstallDirs)
set(RXE_SYSTEMD_UNIT_DIR "lib/systemd/system" CACHE STRING
    "systemd system unit directory (relative to CMAKE_INSTALL_PREFIX, or absolute)")
set(RXE_RUNBOOK_URL "https://rxe-exporter.example/docs/runbook.md" CACHE STRING
    "URL of docs/runbook.md used in the installed alert rules' runbook_url (e.g. your git web view)")
set(RXE_DATA_DIR ${CMAKE_INSTALL_DATADIR}/rxe_exporter)
set(RXE_CONFIG_DIR ${CMAKE_INSTALL_FULL_SYSCONFDIR}/rxe_exporter)

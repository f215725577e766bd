# SPDX-License-Identifier: Apache-2.0
# Defines the imported target seqring::ck (Concurrency Kit's headers) unless it already exists.
#
# Shared by the build and by the installed seqringConfig.cmake, so that the exported targets,
# which link seqring::ck, resolve it the same way on both sides. seqring uses only ck_pr.h, which
# is header-only: the target carries ck's include directory and nothing else (no library, and
# not the -D__x86_64__ that Debian's ck.pc adds, which would reach every program through us).
if(TARGET seqring::ck)
  return()
endif()

find_package(PkgConfig QUIET)
if(PKG_CONFIG_FOUND)
  pkg_check_modules(SEQRING_CK QUIET ck)
endif()
find_path(SEQRING_CK_PR_H_DIR ck_pr.h HINTS ${SEQRING_CK_INCLUDE_DIRS} ${SEQRING_CK_INCLUDEDIR})
if(SEQRING_CK_PR_H_DIR)
  add_library(seqring::ck INTERFACE IMPORTED)
  set_target_properties(seqring::ck PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${SEQRING_CK_PR_H_DIR}")
endif()

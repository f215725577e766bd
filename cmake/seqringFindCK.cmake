# Defines the imported target seqring::ck (Concurrency Kit) unless it already exists.
#
# Shared by the build and by the installed seqringConfig.cmake, so that the exported targets,
# which link seqring::ck, resolve it the same way on both sides: through pkg-config when it
# knows `ck` (Debian's ck.pc adds -D__x86_64__), else by a plain header and library search.
if(TARGET seqring::ck)
  return()
endif()

find_package(PkgConfig QUIET)
if(PKG_CONFIG_FOUND)
  pkg_check_modules(SEQRING_CK QUIET IMPORTED_TARGET ck)
endif()

if(TARGET PkgConfig::SEQRING_CK)
  add_library(seqring::ck INTERFACE IMPORTED)
  target_link_libraries(seqring::ck INTERFACE PkgConfig::SEQRING_CK)
else()
  find_path(SEQRING_CK_PR_H_DIR ck_pr.h)
  find_library(SEQRING_CK_LIBRARY ck)
  if(SEQRING_CK_PR_H_DIR AND SEQRING_CK_LIBRARY)
    add_library(seqring::ck UNKNOWN IMPORTED)
    set_target_properties(seqring::ck PROPERTIES
      IMPORTED_LOCATION "${SEQRING_CK_LIBRARY}"
      INTERFACE_INCLUDE_DIRECTORIES "${SEQRING_CK_PR_H_DIR}")
  endif()
endif()

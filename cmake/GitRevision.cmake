# Writes the version source with the current git revision; run at every build (cmake -P) so
# that reports never carry a stale revision. configure_file rewrites the output only when its
# content changes, so an unchanged revision triggers no rebuild.
# Inputs: SOURCE_DIR, OUTPUT, NORMBENCH_VERSION. The environment variable
# NORMBENCH_GIT_REVISION, where set, wins (a copied tree may carry a stale .git); else git's
# HEAD (with "-dirty" for uncommitted changes to tracked files); else "unknown".
if(DEFINED ENV{NORMBENCH_GIT_REVISION} AND NOT "$ENV{NORMBENCH_GIT_REVISION}" STREQUAL "")
  set(NORMBENCH_GIT_REVISION "$ENV{NORMBENCH_GIT_REVISION}")
else()
  execute_process(
    COMMAND git -C "${SOURCE_DIR}" rev-parse --short=12 HEAD
    OUTPUT_VARIABLE NORMBENCH_GIT_REVISION
    RESULT_VARIABLE git_status
    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(git_status EQUAL 0)
    execute_process(
      COMMAND git -C "${SOURCE_DIR}" status --porcelain --untracked-files=no
      OUTPUT_VARIABLE git_changes
      OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(NOT git_changes STREQUAL "")
      string(APPEND NORMBENCH_GIT_REVISION "-dirty")
    endif()
  else()
    set(NORMBENCH_GIT_REVISION "unknown")
  endif()
endif()
configure_file("${SOURCE_DIR}/cmake/version.cpp.in" "${OUTPUT}" @ONLY)

# cmake -DBUILD=... -DPREFIX=... -P check_cli_docs_installed.cmake
# `cmake --install` puts the man page and the bash and zsh completions of mancala-tb
# (written from its --help by scripts/cli_docs.py) where man and the shells look. Only
# the component cli_docs is installed here; a plain `cmake --install` installs it too.
file(REMOVE_RECURSE ${PREFIX})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD} --prefix ${PREFIX} --component cli_docs OUTPUT_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed: ${rc}")
endif()
foreach(f share/man/man1/mancala-tb.1 share/bash-completion/completions/mancala-tb share/zsh/site-functions/_mancala-tb)
  if(NOT EXISTS ${PREFIX}/${f})
    message(FATAL_ERROR "not installed: ${f}")
  endif()
endforeach()
file(READ ${PREFIX}/share/man/man1/mancala-tb.1 man)
foreach(want ".TH MANCALA-TB 1" ".SS generate" ".SS probe" "--max-seeds" ".SH EXIT STATUS")
  string(FIND "${man}" "${want}" at)
  if(at LESS 0)
    message(FATAL_ERROR "the man page lacks '${want}'")
  endif()
endforeach()
# The bash completion loads and completes a command and an option of it.
execute_process(COMMAND bash -c "source '${PREFIX}/share/bash-completion/completions/mancala-tb'
  COMP_WORDS=(mancala-tb gen); COMP_CWORD=1; _mancala_tb; echo \"\${COMPREPLY[*]}\"
  COMP_WORDS=(mancala-tb info --js); COMP_CWORD=2; _mancala_tb; echo \"\${COMPREPLY[*]}\""
  OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT out STREQUAL "generate\n--json\n")
  message(FATAL_ERROR "bash completion: rc ${rc}, got '${out}'")
endif()
file(READ ${PREFIX}/share/zsh/site-functions/_mancala-tb zsh)
string(FIND "${zsh}" "#compdef mancala-tb" at)
if(NOT at EQUAL 0)
  message(FATAL_ERROR "the zsh completion does not start with #compdef")
endif()
file(REMOVE_RECURSE ${PREFIX})

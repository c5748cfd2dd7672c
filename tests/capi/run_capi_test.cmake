# Generates small tables with the CLI (Oware up to 8 seeds, Kalah(4) up to 11, Imbelece
# from one position, all in one folder), then runs the pure C test against them.
file(REMOVE_RECURSE ${DIR})
foreach(args "oware;--max-seeds;8" "kalah:4:empty;--max-seeds;11"
             "--from;imbelece 2,1,1,2,0x,0x,0x,0x/1,2,2,1,0x,0x,0x,0x S;--max-seeds;12")
  execute_process(COMMAND ${TB} generate ${args} --out ${DIR} RESULT_VARIABLE rc OUTPUT_QUIET)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "generate ${args} failed: ${rc}")
  endif()
endforeach()
execute_process(COMMAND ${EXE} ${DIR} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "test_capi failed: ${rc}")
endif()

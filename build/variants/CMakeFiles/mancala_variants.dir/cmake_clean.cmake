file(REMOVE_RECURSE
  "CMakeFiles/mancala_variants.dir/src/cenne.cpp.o"
  "CMakeFiles/mancala_variants.dir/src/cenne.cpp.o.d"
  "CMakeFiles/mancala_variants.dir/src/djenon_aboure.cpp.o"
  "CMakeFiles/mancala_variants.dir/src/djenon_aboure.cpp.o.d"
  "CMakeFiles/mancala_variants.dir/src/enkeshui.cpp.o"
  "CMakeFiles/mancala_variants.dir/src/enkeshui.cpp.o.d"
  "CMakeFiles/mancala_variants.dir/src/imbelece.cpp.o"
  "CMakeFiles/mancala_variants.dir/src/imbelece.cpp.o.d"
  "CMakeFiles/mancala_variants.dir/src/kalah.cpp.o"
  "CMakeFiles/mancala_variants.dir/src/kalah.cpp.o.d"
  "CMakeFiles/mancala_variants.dir/src/kotu_baendum.cpp.o"
  "CMakeFiles/mancala_variants.dir/src/kotu_baendum.cpp.o.d"
  "CMakeFiles/mancala_variants.dir/src/notation.cpp.o"
  "CMakeFiles/mancala_variants.dir/src/notation.cpp.o.d"
  "CMakeFiles/mancala_variants.dir/src/oware.cpp.o"
  "CMakeFiles/mancala_variants.dir/src/oware.cpp.o.d"
  "CMakeFiles/mancala_variants.dir/src/variant.cpp.o"
  "CMakeFiles/mancala_variants.dir/src/variant.cpp.o.d"
  "libmancala_variants.a"
  "libmancala_variants.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/mancala_variants.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

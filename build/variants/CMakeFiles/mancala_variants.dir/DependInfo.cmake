
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/variants/src/cenne.cpp" "variants/CMakeFiles/mancala_variants.dir/src/cenne.cpp.o" "gcc" "variants/CMakeFiles/mancala_variants.dir/src/cenne.cpp.o.d"
  "/work/main/variants/src/djenon_aboure.cpp" "variants/CMakeFiles/mancala_variants.dir/src/djenon_aboure.cpp.o" "gcc" "variants/CMakeFiles/mancala_variants.dir/src/djenon_aboure.cpp.o.d"
  "/work/main/variants/src/enkeshui.cpp" "variants/CMakeFiles/mancala_variants.dir/src/enkeshui.cpp.o" "gcc" "variants/CMakeFiles/mancala_variants.dir/src/enkeshui.cpp.o.d"
  "/work/main/variants/src/imbelece.cpp" "variants/CMakeFiles/mancala_variants.dir/src/imbelece.cpp.o" "gcc" "variants/CMakeFiles/mancala_variants.dir/src/imbelece.cpp.o.d"
  "/work/main/variants/src/kalah.cpp" "variants/CMakeFiles/mancala_variants.dir/src/kalah.cpp.o" "gcc" "variants/CMakeFiles/mancala_variants.dir/src/kalah.cpp.o.d"
  "/work/main/variants/src/kotu_baendum.cpp" "variants/CMakeFiles/mancala_variants.dir/src/kotu_baendum.cpp.o" "gcc" "variants/CMakeFiles/mancala_variants.dir/src/kotu_baendum.cpp.o.d"
  "/work/main/variants/src/notation.cpp" "variants/CMakeFiles/mancala_variants.dir/src/notation.cpp.o" "gcc" "variants/CMakeFiles/mancala_variants.dir/src/notation.cpp.o.d"
  "/work/main/variants/src/oware.cpp" "variants/CMakeFiles/mancala_variants.dir/src/oware.cpp.o" "gcc" "variants/CMakeFiles/mancala_variants.dir/src/oware.cpp.o.d"
  "/work/main/variants/src/variant.cpp" "variants/CMakeFiles/mancala_variants.dir/src/variant.cpp.o" "gcc" "variants/CMakeFiles/mancala_variants.dir/src/variant.cpp.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")

# Empty dependencies file for test_variants.
# This may be replaced when dependencies are built.

# CMake generated Testfile for 
# Source directory: /work/main/suites/example
# Build directory: /work/main/build/suites/example
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.

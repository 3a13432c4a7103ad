# CMake generated Testfile for 
# Source directory: /work/main/framework/load
# Build directory: /work/main/build/framework/load
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.

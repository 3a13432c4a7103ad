// The object that owns the test programs' precompiled header (cmake/aftershock_pch.cmake): every
// *_test program reuses the header this one's compilation makes. Nothing to compile of its own.

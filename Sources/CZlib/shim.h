// The system zlib (Debian: zlib1g-dev), for the Storage emulator's decompressive transcoding of
// gzip-encoded objects.
#include <zlib.h>

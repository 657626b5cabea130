// Only here so that SwiftPM reads `pkg-config vips` for the targets that depend on CLibvips.
// Swift code never imports this module: it goes through CVips, whose header needs no glib include paths.
#include <vips/vips.h>

// Non-variadic wrappers around the libvips 8.14 C API, for Swift (which cannot call C variadic functions).
//
// This header deliberately does not include <vips/vips.h>: Swift sees VipsImage as an opaque pointer and the
// Swift side needs no glib include paths. Every function that returns a new VipsImage hands over one
// reference (release it with cvips_unref); every buffer a saver returns is released with cvips_free.
// Functions returning int answer 0 on success and -1 on failure (the reason is in cvips_take_error()).

#ifndef CVIPS_H
#define CVIPS_H

#include <stddef.h>

typedef struct _VipsImage VipsImage;

/// How much damage a loader tolerates before failing (mirrors VipsFailOn).
typedef enum {
    CVIPS_FAIL_ON_NONE = 0,
    CVIPS_FAIL_ON_TRUNCATED = 1,
    CVIPS_FAIL_ON_ERROR = 2,
    CVIPS_FAIL_ON_WARNING = 3,
} CVipsFailOn;

/// Starts libvips once: VIPS_INIT, no operation cache, `threads` worker threads per pipeline,
/// untrusted loaders (ImageMagick, matload, …) blocked. Not thread-safe: call it from one place, once.
int cvips_start(const char *program_name, int threads);

/// The libvips error text collected so far (a copy, free with cvips_free), then clears it.
char *cvips_take_error(void);
void cvips_free(void *pointer);
void cvips_unref(VipsImage *image);

/// libvips' loader class name for these bytes (e.g. "VipsForeignLoadJpegBuffer"), or NULL. Sniffs magic only.
const char *cvips_loader_name(const void *data, size_t length);

/// Opens the image lazily: only the header is read, no pixel is decoded. `data` must outlive the image.
VipsImage *cvips_open_header(const void *data, size_t length, CVipsFailOn fail_on);

int cvips_width(const VipsImage *image);
int cvips_height(const VipsImage *image);
/// 1 when the image is 8-bit sRGB (with or without alpha), else 0.
int cvips_is_srgb8(const VipsImage *image);
/// 1 when the image is CMYK, else 0.
int cvips_is_cmyk(const VipsImage *image);
int cvips_has_field(VipsImage *image, const char *name);
/// An int metadata field, or `fallback` when the image does not have it.
int cvips_int_field(VipsImage *image, const char *name, int fallback);
/// A string metadata field (EXIF fields read as "value (value, type, n components, n bytes)"), copied
/// into `out` (NUL-terminated, cut at `capacity`); 1 when the image has it, else 0.
int cvips_string_field(VipsImage *image, const char *name, char *out, size_t capacity);

/// Shrink-on-load thumbnail fitting width × height, never upscaled, turned upright by EXIF orientation,
/// first page/frame only. With `export_profile` (e.g. "srgb") an embedded ICC profile is converted to it.
/// `data` must outlive `out`. Pixels are decoded lazily, when `out` is copied to memory or saved.
int cvips_thumbnail_buffer(const void *data, size_t length, int width, int height,
                           CVipsFailOn fail_on, const char *export_profile, VipsImage **out);
/// A JPEG decoded by libjpeg at 1/`shrink` scale (1, 2, 4 or 8) and turned upright by EXIF orientation.
/// `data` must outlive `out`; pixels are decoded lazily.
int cvips_load_jpeg_shrunk(const void *data, size_t length, int shrink, CVipsFailOn fail_on, VipsImage **out);
/// A progressive YCbCr JPEG with its three components sampled alike (4:4:4; a DC scan carrying luma and chroma
/// together only when 1×1), every coefficient sent, decoded at 1/`shrink` scale on two threads:
/// the luma component from its scans on one, the chroma components from theirs on the other (see
/// progressive_split.c). The pixels are the ones cvips_load_jpeg_shrunk gives, with the same metadata a later
/// step uses (ICC profile) and turned upright the same way, in memory. -1 with *out NULL, and no libvips error,
/// for any other file and for any file with something wrong in it: the caller then uses cvips_load_jpeg_shrunk,
/// which decodes it on one thread or says what is wrong.
int cvips_load_progressive_jpeg_split(const void *data, size_t length, int shrink, VipsImage **out);
/// Same fit rules as cvips_thumbnail_buffer, for an image already decoded.
int cvips_thumbnail_image(VipsImage *in, int width, int height, VipsImage **out);

/// Computes every pixel into memory (this is where decode errors surface); NULL on failure.
VipsImage *cvips_copy_memory(VipsImage *image);

/// Converts the embedded ICC profile's colours to sRGB (8 bit). Fails when there is no usable profile.
int cvips_icc_to_srgb(VipsImage *in, VipsImage **out);
/// 8-bit sRGB (plus alpha if any) from whatever interpretation `in` has (CMYK, RGB16, B_W, …).
int cvips_to_srgb8(VipsImage *in, VipsImage **out);
/// Composites the alpha band over white; an image without alpha is returned as it is.
int cvips_flatten_on_white(VipsImage *in, VipsImage **out);
/// A copy without any metadata field (exif-*, xmp-*, iptc-*, icc-profile-data, comments, orientation, …).
int cvips_without_metadata(VipsImage *in, VipsImage **out);

/// Baseline or progressive JPEG with optimised Huffman tables, metadata stripped (`strip` works in 8.14).
int cvips_save_jpeg(VipsImage *in, int quality, int progressive, void **buffer, size_t *length);
/// Lossy WebP. 8.14 ignores `strip` here and writes an EXIF chunk anyway: the caller must remove it.
int cvips_save_webp(VipsImage *in, int quality, int effort, void **buffer, size_t *length);

/// The pixels of `image`, band after band of each pixel, row after row (free with cvips_free); NULL on
/// failure. For checks that two decodes agree.
void *cvips_pixels(VipsImage *image, size_t *length);

/// VipsObjects alive in the process (images, operations, sources, …): with no call in flight it should
/// come back to the same number, whatever was processed. For leak checks.
int cvips_live_object_count(void);
/// Bytes of pixel memory libvips has allocated and not yet freed.
size_t cvips_tracked_bytes(void);

#endif

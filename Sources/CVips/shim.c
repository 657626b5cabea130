// See include/CVips.h. Each wrapper ends its variadic libvips call with NULL, which Swift cannot do.

#include <vips/vips.h>

#include "CVips.h"

static void cvips_ignore_log(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {}

int cvips_start(const char *program_name, int threads) {
    if (VIPS_INIT(program_name) != 0)
        return -1;
    // The operation cache would keep decoded images (and the caller's input buffers) alive after a call.
    vips_cache_set_max(0);
    vips_cache_set_max_mem(0);
    vips_cache_set_max_files(0);
    vips_concurrency_set(threads);
    // Uploads are untrusted: refuse loaders libvips itself marks as unsafe for them.
    vips_block_untrusted_set(TRUE);
    // Every failure reaches the caller as an error; libvips' own warnings would only be unstructured stderr.
    g_log_set_handler("VIPS", G_LOG_LEVEL_WARNING, cvips_ignore_log, NULL);
    return 0;
}

char *cvips_take_error(void) {
    char *text = g_strdup(vips_error_buffer());
    vips_error_clear();
    return text;
}

void cvips_free(void *pointer) { g_free(pointer); }

void cvips_unref(VipsImage *image) {
    if (image)
        g_object_unref(image);
}

const char *cvips_loader_name(const void *data, size_t length) {
    const char *name = vips_foreign_find_load_buffer(data, length);
    // find_load_buffer reports "not a known format" as an error; that is an answer here, not a failure.
    if (!name)
        vips_error_clear();
    return name;
}

VipsImage *cvips_open_header(const void *data, size_t length, CVipsFailOn fail_on) {
    return vips_image_new_from_buffer(data, length, "",
                                      "access", VIPS_ACCESS_SEQUENTIAL,
                                      "fail_on", (VipsFailOn)fail_on,
                                      NULL);
}

int cvips_width(const VipsImage *image) { return vips_image_get_width(image); }
int cvips_height(const VipsImage *image) { return vips_image_get_height(image); }

int cvips_is_srgb8(const VipsImage *image) {
    return vips_image_get_interpretation(image) == VIPS_INTERPRETATION_sRGB &&
           vips_image_get_format(image) == VIPS_FORMAT_UCHAR;
}

int cvips_is_cmyk(const VipsImage *image) {
    return vips_image_get_interpretation(image) == VIPS_INTERPRETATION_CMYK;
}

int cvips_has_field(VipsImage *image, const char *name) {
    return vips_image_get_typeof(image, name) != 0 ? 1 : 0;
}

int cvips_int_field(VipsImage *image, const char *name, int fallback) {
    int value;
    if (vips_image_get_typeof(image, name) == 0 || vips_image_get_int(image, name, &value) != 0) {
        vips_error_clear();
        return fallback;
    }
    return value;
}

int cvips_string_field(VipsImage *image, const char *name, char *out, size_t capacity) {
    const char *value = NULL;
    if (capacity == 0 || vips_image_get_typeof(image, name) == 0 || vips_image_get_string(image, name, &value) != 0 || !value) {
        vips_error_clear();
        return 0;
    }
    g_strlcpy(out, value, capacity);
    return 1;
}

int cvips_thumbnail_buffer(const void *data, size_t length, int width, int height,
                           CVipsFailOn fail_on, const char *export_profile, VipsImage **out) {
    // 8.14's thumbnail_buffer does not pass its own fail_on to the loader: loader options go in option_string.
    const char *option_string = vips_enum_nick(VIPS_TYPE_FAIL_ON, (int)fail_on);
    char options[64];
    g_snprintf(options, sizeof(options), "fail_on=%s", option_string);
    // vips_thumbnail_buffer only reads the buffer; its prototype lacks the const.
    // A NULL export_profile ends the argument list early, which leaves the option unset.
    return vips_thumbnail_buffer((void *)data, length, out, width,
                                 "height", height,
                                 "size", VIPS_SIZE_DOWN,
                                 "option_string", options,
                                 export_profile ? "export_profile" : NULL, export_profile,
                                 NULL);
}

int cvips_load_jpeg_shrunk(const void *data, size_t length, int shrink, CVipsFailOn fail_on, VipsImage **out) {
    return vips_jpegload_buffer((void *)data, length, out,
                                "access", VIPS_ACCESS_SEQUENTIAL,
                                "shrink", shrink,
                                "autorotate", TRUE,
                                "fail_on", (VipsFailOn)fail_on,
                                NULL);
}

int cvips_thumbnail_image(VipsImage *in, int width, int height, VipsImage **out) {
    return vips_thumbnail_image(in, out, width,
                                "height", height,
                                "size", VIPS_SIZE_DOWN,
                                NULL);
}

VipsImage *cvips_copy_memory(VipsImage *image) { return vips_image_copy_memory(image); }

int cvips_icc_to_srgb(VipsImage *in, VipsImage **out) {
    return vips_icc_transform(in, out, "srgb",
                              "embedded", TRUE,
                              "intent", VIPS_INTENT_RELATIVE,
                              "depth", 8,
                              NULL);
}

int cvips_to_srgb8(VipsImage *in, VipsImage **out) {
    VipsImage *srgb;
    if (vips_colourspace(in, &srgb, VIPS_INTERPRETATION_sRGB, NULL) != 0)
        return -1;
    if (vips_image_get_format(srgb) == VIPS_FORMAT_UCHAR) {
        *out = srgb;
        return 0;
    }
    int status = vips_cast_uchar(srgb, out, NULL);
    g_object_unref(srgb);
    return status;
}

int cvips_flatten_on_white(VipsImage *in, VipsImage **out) {
    if (!vips_image_hasalpha(in)) {
        g_object_ref(in);
        *out = in;
        return 0;
    }
    double white[3] = {255.0, 255.0, 255.0};
    VipsArrayDouble *background = vips_array_double_new(white, 3);
    int status = vips_flatten(in, out, "background", background, NULL);
    vips_area_unref(VIPS_AREA(background));
    return status;
}

int cvips_without_metadata(VipsImage *in, VipsImage **out) {
    // A copy shares pixels but has its own metadata table, so removing fields leaves `in` intact.
    if (vips_copy(in, out, NULL) != 0)
        return -1;
    gchar **fields = vips_image_get_fields(*out);
    // get_fields also lists the fixed header fields (width, bands, …); remove() ignores those.
    for (gchar **field = fields; *field; field++)
        vips_image_remove(*out, *field);
    g_strfreev(fields);
    return 0;
}

int cvips_save_jpeg(VipsImage *in, int quality, int progressive, void **buffer, size_t *length) {
    return vips_jpegsave_buffer(in, buffer, length,
                                "Q", quality,
                                "interlace", progressive ? TRUE : FALSE,
                                "optimize_coding", TRUE,
                                "strip", TRUE,
                                NULL);
}

int cvips_save_webp(VipsImage *in, int quality, int effort, void **buffer, size_t *length) {
    return vips_webpsave_buffer(in, buffer, length,
                                "Q", quality,
                                "effort", effort,
                                "strip", TRUE,
                                NULL);
}

void *cvips_pixels(VipsImage *image, size_t *length) { return vips_image_write_to_memory(image, length); }

static void *cvips_count_object(VipsObject *object, void *count, void *unused) {
    (*(int *)count)++;
    return NULL;
}

int cvips_live_object_count(void) {
    int count = 0;
    vips_object_map((VipsSListMap2Fn)cvips_count_object, &count, NULL);
    return count;
}

size_t cvips_tracked_bytes(void) { return vips_tracked_get_mem(); }

// A progressive JPEG decoded on two threads: its brightness from its own scans on one, its colour from
// theirs on the other. See cvips_load_progressive_jpeg_split in include/CVips.h.
//
// Why this works: in a progressive file every AC scan carries one component (the standard allows no
// other), and libjpeg turns each component's coefficients into pixels on its own (inverse DCT, then
// upsampling); only the last step, YCbCr to RGB, mixes them. So the file is cut into two JPEG streams
// with the same tables: one with the luma component's scans and a frame of that component alone, one
// with the chroma components' scans and a frame of those two. A DC scan that carries all three (libjpeg's
// own scan script writes its DC scans so) is rewritten as one scan per component (rewrite_dc_scan). Each
// stream's Huffman decoding, the slow part of a progressive file, then runs on its own core.
//
// Measured on 14.7 MP photos (Debian's wallpapers, 4:4:4, decoded at 1/2): Volna, one component per
// scan, 400 → 285 ms for every rendition with the same CPU; Flow, libjpeg's script, 330–356 → 240 ms
// for 5 % more CPU (both threads read the DC scans through to rewrite them).

#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <vips/vips.h>

#include "CVips.h"

// More segments than this (scans, tables) is not a file any encoder writes: it is decoded the usual way.
enum { SPLIT_MAX_SEGMENTS = 512 };

typedef enum { SEGMENT_TABLES, SEGMENT_FRAME, SEGMENT_SCAN } SegmentKind;

typedef struct {
    SegmentKind kind;
    size_t start, end;   // the marker's first byte; one past the segment (for a scan: past its entropy-coded data)
    size_t data;         // for a scan: where its entropy-coded data begins
    unsigned components; // for a scan: the frame components it carries, as a bit per index in the frame
} Segment;

typedef struct {
    Segment segments[SPLIT_MAX_SEGMENTS];
    int count;
    int frame;            // the frame segment's index
    int frame_components; // Nf
    unsigned char frame_ids[3];
    size_t frame_specs;   // offset of the first component specification in the frame segment
} Layout;

static unsigned read16(const unsigned char *bytes) { return ((unsigned)bytes[0] << 8) | bytes[1]; }

// Finds where each table, the frame and each scan lie. 0 when the file is not one this splits (any other
// frame type, arithmetic coding, a DNL marker, anything out of place): the ordinary decoder then reads it.
static int split_layout(const unsigned char *data, size_t length, Layout *layout) {
    layout->count = 0;
    layout->frame_components = 0;
    if (length < 4 || data[0] != 0xFF || data[1] != 0xD8)
        return 0;
    size_t at = 2;
    for (;;) {
        if (at >= length || data[at] != 0xFF)
            return 0;
        while (at < length && data[at] == 0xFF) // fill bytes may come before a marker: left out
            at++;
        if (at >= length)
            return 0;
        size_t marker = at - 1;
        unsigned char code = data[at++];
        if (code == 0xD9) // EOI
            return layout->frame_components == 3 && layout->count > 0;
        if (code == 0x00 || code == 0x01 || code == 0xD8 || (code >= 0xD0 && code <= 0xD7))
            return 0;
        if (at + 2 > length)
            return 0;
        size_t end = at + read16(data + at);
        if (end < at + 2 || end > length || layout->count == SPLIT_MAX_SEGMENTS)
            return 0;
        Segment *segment = &layout->segments[layout->count];
        segment->start = marker;
        segment->components = 0;
        switch (code) {
        case 0xC2: { // progressive, Huffman: the one frame type this splits
            if (layout->frame_components != 0 || end - at != 8 + 3 * 3 || data[at + 7] != 3)
                return 0;
            layout->frame = layout->count;
            layout->frame_components = 3;
            layout->frame_specs = at + 8 - marker;
            for (int index = 0; index < 3; index++)
                layout->frame_ids[index] = data[at + 8 + 3 * index];
            segment->kind = SEGMENT_FRAME;
            segment->end = end;
            break;
        }
        case 0xDA: { // a scan: its header, then entropy-coded data up to the next marker
            if (layout->frame_components == 0 || end - at < 6)
                return 0;
            unsigned count = data[at + 2];
            if (count < 1 || count > 3 || end - at != 6 + 2 * count)
                return 0;
            for (unsigned c = 0; c < count; c++) {
                int found = -1;
                for (int index = 0; index < 3; index++)
                    if (layout->frame_ids[index] == data[at + 3 + 2 * c])
                        found = index;
                if (found < 0 || (segment->components & (1u << found)))
                    return 0; // not in the frame, or twice in the scan
                segment->components |= 1u << found;
            }
            size_t scan = end;
            for (;;) {
                if (scan + 1 >= length)
                    return 0; // cut short: the ordinary decoder says how
                if (data[scan] != 0xFF) {
                    scan++;
                    continue;
                }
                unsigned char next = data[scan + 1];
                if (next == 0x00 || (next >= 0xD0 && next <= 0xD7)) {
                    scan += 2; // a stuffed 0xFF byte, or a restart marker: still this scan
                    continue;
                }
                if (next == 0xFF) {
                    scan++;
                    continue;
                }
                break;
            }
            segment->kind = SEGMENT_SCAN;
            segment->data = end;
            segment->end = scan;
            layout->count++;
            at = scan;
            continue;
        }
        case 0xC4: case 0xDB: case 0xDD: // Huffman tables, quantisation tables, restart interval
            segment->kind = SEGMENT_TABLES;
            segment->end = end;
            break;
        case 0xC0: case 0xC1: case 0xC3: case 0xC5: case 0xC6: case 0xC7:
        case 0xC9: case 0xCA: case 0xCB: case 0xCC: case 0xCD: case 0xCE: case 0xCF: case 0xDC:
            return 0; // another frame type, arithmetic coding, or a DNL marker
        default:
            if ((code >= 0xE0 && code <= 0xEF) || code == 0xFE) { // APPn, COM: nothing a decoder of pixels needs
                at = end;
                continue;
            }
            return 0; // a marker libjpeg refuses (JPG, DHP, EXP, reserved): the ordinary loader says so
        }
        layout->count++;
        at = end;
    }
}

static unsigned split_frame_height(const unsigned char *data, const Layout *layout) {
    return read16(data + layout->segments[layout->frame].start + 5);
}

static unsigned split_frame_width(const unsigned char *data, const Layout *layout) {
    return read16(data + layout->segments[layout->frame].start + 7);
}

// A growing byte buffer; `failed` once an allocation fails.
typedef struct {
    unsigned char *bytes;
    size_t length, capacity;
    int failed;
} Output;

static void put_bytes(Output *out, const void *bytes, size_t count) {
    if (out->failed)
        return;
    if (out->length + count > out->capacity) {
        size_t capacity = MAX(out->capacity * 2, out->length + count);
        unsigned char *grown = realloc(out->bytes, capacity);
        if (!grown) {
            out->failed = 1;
            return;
        }
        out->bytes = grown;
        out->capacity = capacity;
    }
    memcpy(out->bytes + out->length, bytes, count);
    out->length += count;
}

static inline void put_byte(Output *out, unsigned char byte) {
    if (out->length < out->capacity)
        out->bytes[out->length++] = byte;
    else
        put_bytes(out, &byte, 1);
}

// A DC Huffman table as defined by a DHT segment, with what reading and writing its codes needs
// (the canonical codes of ITU T.81 Annex C, as libjpeg's jdhuff.c derives them), and a lookup of the
// codes up to 8 bits long by the next 8 bits.
typedef struct {
    int defined;
    int32_t maxcode[18], valoffset[17];
    unsigned char values[256];
    unsigned short code[256];
    unsigned char size[256];
    unsigned short lookup[256]; // length << 8 | value; 0 for a longer code
} DCTable;

static int define_table(DCTable *table, const unsigned char *counts, const unsigned char *values) {
    int total = 0;
    for (int l = 1; l <= 16; l++)
        total += counts[l - 1];
    if (total > 256)
        return 0;
    memset(table, 0, sizeof(*table));
    memcpy(table->values, values, (size_t)total);
    int32_t code = 0;
    int p = 0;
    for (int l = 1; l <= 16; l++) {
        if (counts[l - 1] == 0) {
            table->maxcode[l] = -1;
        } else {
            table->valoffset[l] = p - code;
            for (int i = 0; i < counts[l - 1]; i++, p++, code++) {
                if (code >= (1 << l) - 1) // more codes than the length holds: no code may be all ones (jdhuff.c)
                    return 0;
                table->code[values[p]] = (unsigned short)code;
                table->size[values[p]] = (unsigned char)l;
                if (l <= 8)
                    for (int suffix = 0; suffix < (1 << (8 - l)); suffix++)
                        table->lookup[(code << (8 - l)) | suffix] = (unsigned short)(l << 8 | values[p]);
            }
            table->maxcode[l] = code - 1;
        }
        code <<= 1;
    }
    table->maxcode[17] = INT32_MAX;
    table->defined = 1;
    return 1;
}

// Bits of entropy-coded data: a stuffed 0xFF 0x00 is the byte 0xFF. At a marker (or the end) it reads
// zero bits, as libjpeg does, and counts them: reading one of those is a damaged scan.
typedef struct {
    const unsigned char *data;
    size_t at, end;
    uint64_t buffer;
    int count;   // bits in `buffer`, the last `padding` of them past the data
    int padding;
    int failed;
} BitReader;

static inline void fill_bits(BitReader *reader) {
    while (reader->count <= 56) {
        unsigned char byte = 0;
        if (reader->padding == 0 && reader->at < reader->end) {
            byte = reader->data[reader->at];
            if (byte == 0xFF) {
                if (reader->at + 1 < reader->end && reader->data[reader->at + 1] == 0x00) {
                    reader->at += 2;
                } else {
                    byte = 0; // a marker: stop before it
                    reader->padding += 8;
                }
            } else {
                reader->at++;
            }
        } else {
            reader->padding += 8;
        }
        reader->buffer = (reader->buffer << 8) | byte;
        reader->count += 8;
    }
}

static inline int read_bits(BitReader *reader, int count) {
    if (count == 0)
        return 0;
    if (reader->count < count)
        fill_bits(reader);
    reader->count -= count;
    if (reader->count < reader->padding)
        reader->failed = 1;
    return (int)((reader->buffer >> reader->count) & ((1u << count) - 1));
}

static inline int read_symbol(BitReader *reader, const DCTable *table) {
    if (reader->count < 16)
        fill_bits(reader);
    unsigned entry = table->lookup[(reader->buffer >> (reader->count - 8)) & 0xFF];
    if (entry != 0) {
        reader->count -= (int)(entry >> 8);
        if (reader->count < reader->padding)
            reader->failed = 1;
        return entry & 0xFF;
    }
    int32_t code = read_bits(reader, 8);
    int l = 8;
    while (code > table->maxcode[l]) {
        code = (code << 1) | read_bits(reader, 1);
        if (++l > 16) {
            reader->failed = 1;
            return 0;
        }
    }
    int index = code + table->valoffset[l];
    if (index < 0 || index > 255) {
        reader->failed = 1;
        return 0;
    }
    return table->values[index];
}

// The restart marker that ends a restart interval: what is left of its last byte is padding.
static void read_restart(BitReader *reader, int number) {
    if (reader->count - reader->padding >= 8 || reader->at + 1 >= reader->end ||
        reader->data[reader->at] != 0xFF || reader->data[reader->at + 1] != 0xD0 + number) {
        reader->failed = 1;
        return;
    }
    reader->at += 2;
    reader->buffer = 0;
    reader->count = 0;
    reader->padding = 0;
}

typedef struct {
    Output *out;
    uint64_t buffer;
    int count;
} BitWriter;

static inline void write_bits(BitWriter *writer, unsigned value, int count) {
    writer->buffer = (writer->buffer << count) | (value & ((1u << count) - 1));
    writer->count += count;
    while (writer->count >= 8) {
        writer->count -= 8;
        unsigned char byte = (unsigned char)(writer->buffer >> writer->count);
        put_byte(writer->out, byte);
        if (byte == 0xFF)
            put_byte(writer->out, 0x00);
    }
}

// Pads the last byte with 1 bits, as an encoder does at the end of a scan or a restart interval.
static void write_padding(BitWriter *writer) {
    if (writer->count > 0)
        write_bits(writer, 0x7F, 8 - writer->count);
}

// One component's DC scan out of a DC scan that carries several (libjpeg's own scan script writes the
// first DC scans so). In a file whose components are all sampled 1×1, each MCU of such a scan holds one
// block of each component, in the order a scan of that component alone holds them, with restarts at
// the same blocks; each component's DC differences are its own (T.81 F.1.1.5.1). So its symbols, or
// for a refinement scan its bits, are written again under a header of its own, with the same
// Huffman table: the coefficients libjpeg reads from it are the ones it reads from the original.
static int rewrite_dc_scan(const unsigned char *data, const Segment *scan, int position, const DCTable *tables,
                           unsigned restart_interval, size_t blocks, Output *out) {
    const unsigned char *header = data + scan->start;
    int count = header[4];
    int first = 5 + 2 * count; // Ss, Se, Ah/Al
    int refinement = (header[first + 2] >> 4) != 0;
    const DCTable *table[3] = {NULL, NULL, NULL}; // a refinement scan codes no symbol
    for (int k = 0; k < count && !refinement; k++) {
        int number = header[6 + 2 * k] >> 4;
        if (number > 3 || !tables[number].defined)
            return 0;
        table[k] = &tables[number];
    }
    unsigned char single[10] = {0xFF, 0xDA, 0x00, 0x08, 0x01, header[5 + 2 * position], header[6 + 2 * position],
                                header[first], header[first + 1], header[first + 2]};
    put_bytes(out, single, sizeof(single));
    BitReader reader = {.data = data, .at = scan->data, .end = scan->end};
    BitWriter writer = {.out = out};
    for (size_t mcu = 0; mcu < blocks && !reader.failed; mcu++) {
        if (restart_interval && mcu > 0 && mcu % restart_interval == 0) {
            int number = (int)((mcu / restart_interval - 1) & 7);
            read_restart(&reader, number);
            write_padding(&writer);
            put_byte(out, 0xFF);
            put_byte(out, (unsigned char)(0xD0 + number));
        }
        for (int k = 0; k < count; k++) {
            if (refinement) {
                int bit = read_bits(&reader, 1);
                if (k == position)
                    write_bits(&writer, (unsigned)bit, 1);
            } else {
                int size = read_symbol(&reader, table[k]);
                if (size > 11) { // an 8-bit DC difference has at most 11 bits
                    reader.failed = 1;
                    break;
                }
                int bits = read_bits(&reader, size);
                if (k == position) {
                    if (table[k]->size[size] == 0)
                        return 0;
                    write_bits(&writer, table[k]->code[size], table[k]->size[size]);
                    write_bits(&writer, (unsigned)bits, size);
                }
            }
        }
    }
    write_padding(&writer);
    return !reader.failed && !out->failed;
}

// The stream of the scans that carry any of `wanted` (a bit per frame index), with a frame of those
// components alone: a DC scan that carries others along is rewritten for each wanted component
// (rewrite_dc_scan). NULL when a scan cannot be cut so (components not all sampled 1×1, a damaged
// DC scan).
static unsigned char *split_stream(const unsigned char *data, const Layout *layout, unsigned wanted, size_t *length) {
    const unsigned char *frame = data + layout->segments[layout->frame].start;
    int all_one_by_one = 1;
    for (int index = 0; index < 3; index++)
        all_one_by_one &= frame[layout->frame_specs + 3 * index + 1] == 0x11;
    size_t blocks = (size_t)((read16(frame + 7) + 7) / 8) * (size_t)((read16(frame + 5) + 7) / 8);
    DCTable tables[4] = {0};
    unsigned restart_interval = 0;
    Output out = {0};
    put_bytes(&out, "\xFF\xD8", 2);
    for (int i = 0; i < layout->count && !out.failed; i++) {
        const Segment *segment = &layout->segments[i];
        const unsigned char *bytes = data + segment->start;
        switch (segment->kind) {
        case SEGMENT_TABLES:
            if (bytes[1] == 0xDD) {
                if (segment->end - segment->start != 6)
                    goto failed;
                restart_interval = read16(bytes + 4);
            }
            if (bytes[1] == 0xC4) { // one or more Huffman tables: keep the DC ones' codes
                size_t at = segment->start + 4;
                while (at < segment->end) {
                    unsigned char kind = data[at];
                    if (at + 17 > segment->end)
                        goto failed;
                    const unsigned char *counts = data + at + 1;
                    size_t total = 0;
                    for (int l = 0; l < 16; l++)
                        total += counts[l];
                    if (at + 17 + total > segment->end || (kind & 0x0F) > 3 || (kind >> 4) > 1)
                        goto failed;
                    if ((kind >> 4) == 0 && !define_table(&tables[kind & 0x0F], counts, data + at + 17))
                        goto failed;
                    at += 17 + total;
                }
            }
            put_bytes(&out, bytes, segment->end - segment->start);
            break;
        case SEGMENT_SCAN:
            if (!(segment->components & wanted))
                break;
            if ((segment->components & ~wanted) == 0) {
                put_bytes(&out, bytes, segment->end - segment->start);
                break;
            }
            // A DC scan of several components (AC scans carry one): each wanted one on its own.
            if (!all_one_by_one || bytes[5 + 2 * bytes[4]] != 0 || bytes[6 + 2 * bytes[4]] != 0)
                goto failed;
            for (int position = 0; position < bytes[4]; position++) {
                int index = -1;
                for (int f = 0; f < 3; f++)
                    if (layout->frame_ids[f] == bytes[5 + 2 * position])
                        index = f;
                if (index >= 0 && ((wanted >> index) & 1) &&
                    !rewrite_dc_scan(data, segment, position, tables, restart_interval, blocks, &out))
                    goto failed;
            }
            break;
        case SEGMENT_FRAME: {
            int kept = 0;
            for (int index = 0; index < 3; index++)
                kept += (wanted >> index) & 1;
            unsigned segment_length = 8 + 3 * kept;
            unsigned char head[] = {0xFF, 0xC2, (unsigned char)(segment_length >> 8), (unsigned char)segment_length};
            put_bytes(&out, head, sizeof(head));
            put_bytes(&out, bytes + 4, 5); // precision, height, width
            put_byte(&out, (unsigned char)kept);
            for (int index = 0; index < 3; index++)
                if ((wanted >> index) & 1)
                    put_bytes(&out, bytes + layout->frame_specs + 3 * index, 3);
            break;
        }
        }
    }
    put_bytes(&out, "\xFF\xD9", 2);
    if (out.failed)
        goto failed;
    *length = out.length;
    return out.bytes;
failed:
    free(out.bytes);
    return NULL;
}

// libjpeg's errors and warnings both end the decode: a file with anything wrong in it goes to the
// ordinary decoder, which reports it the way every other upload's is reported.
typedef struct {
    struct jpeg_error_mgr manager;
    jmp_buf jump;
} SplitErrors;

static void split_error_exit(j_common_ptr info) { longjmp(((SplitErrors *)info->err)->jump, 1); }

static void split_emit_message(j_common_ptr info, int level) {
    if (level < 0)
        longjmp(((SplitErrors *)info->err)->jump, 1);
}

static void split_output_message(j_common_ptr info) {}

typedef struct {
    const unsigned char *data;
    const Layout *layout;
    unsigned wanted;       // the frame components this part decodes
    int shrink;
    unsigned char *stream; // their scans, made by the part
    size_t length;
    unsigned char *pixels; // width × height × channels, owned by the part
    int width, height, channels;
    int ok;
} Part;

static void decode_part(Part *part) {
    struct jpeg_decompress_struct info;
    SplitErrors errors;
    // Set before setjmp, read after a longjmp: volatile, so the compiler keeps them in memory.
    unsigned char *volatile pixels = NULL;
    JSAMPROW *volatile rows = NULL;
    part->ok = 0;
    part->stream = split_stream(part->data, part->layout, part->wanted, &part->length);
    if (!part->stream)
        return;
    info.err = jpeg_std_error(&errors.manager);
    errors.manager.error_exit = split_error_exit;
    errors.manager.emit_message = split_emit_message;
    errors.manager.output_message = split_output_message;
    jpeg_create_decompress(&info);
    if (setjmp(errors.jump)) {
        jpeg_destroy_decompress(&info);
        free(pixels);
        free(rows);
        return;
    }
    jpeg_mem_src(&info, part->stream, (unsigned long)part->length);
    jpeg_read_header(&info, TRUE);
    // No colour conversion: the luma part hands over its plane, the chroma part its two as they are.
    J_COLOR_SPACE space = info.num_components == 1 ? JCS_GRAYSCALE : JCS_UNKNOWN;
    info.jpeg_color_space = space;
    info.out_color_space = space;
    info.scale_num = 1;
    info.scale_denom = (unsigned)part->shrink;
    // libjpeg smooths the blocks of a file whose coefficients are not all sent, deciding from every
    // component at once, which a part cannot see: only complete files are split (checked below), and for
    // them smoothing does nothing. Off, so that no part could smooth on its own.
    info.do_block_smoothing = FALSE;
    jpeg_start_decompress(&info); // a progressive file is read whole here
    for (int c = 0; c < info.num_components; c++)
        for (int k = 0; k < DCTSIZE2; k++)
            if (info.coef_bits[c][k] != 0) // never sent (-1), or its last bits missing
                longjmp(errors.jump, 1);
    size_t stride = (size_t)info.output_width * (size_t)info.output_components;
    pixels = malloc(stride * info.output_height);
    rows = malloc(sizeof(JSAMPROW) * info.output_height);
    if (!pixels || !rows)
        longjmp(errors.jump, 1);
    for (JDIMENSION y = 0; y < info.output_height; y++)
        rows[y] = pixels + stride * y;
    while (info.output_scanline < info.output_height)
        jpeg_read_scanlines(&info, rows + info.output_scanline, info.output_height - info.output_scanline);
    jpeg_finish_decompress(&info);
    part->width = (int)info.output_width;
    part->height = (int)info.output_height;
    part->channels = info.output_components;
    part->pixels = pixels;
    part->ok = 1;
    free(rows);
    jpeg_destroy_decompress(&info);
}

static void *decode_part_thread(void *part) {
    decode_part(part);
    return NULL;
}

// YCbCr to RGB with libjpeg's own fixed-point tables (jdcolor.c), so that the result is the bytes a
// whole decode of the file gives.
#define SPLIT_SCALEBITS 16
#define SPLIT_ONE_HALF ((int32_t)1 << (SPLIT_SCALEBITS - 1))
#define SPLIT_FIX(x) ((int32_t)((x) * (1L << SPLIT_SCALEBITS) + 0.5))

typedef struct {
    int cr_r[256], cb_b[256];
    int32_t cr_g[256], cb_g[256];
} YCCTables;

static void ycc_tables(YCCTables *tables) {
    for (int i = 0; i < 256; i++) {
        int32_t x = i - 128;
        tables->cr_r[i] = (int)((SPLIT_FIX(1.40200) * x + SPLIT_ONE_HALF) >> SPLIT_SCALEBITS);
        tables->cb_b[i] = (int)((SPLIT_FIX(1.77200) * x + SPLIT_ONE_HALF) >> SPLIT_SCALEBITS);
        tables->cr_g[i] = -SPLIT_FIX(0.71414) * x;
        tables->cb_g[i] = -SPLIT_FIX(0.34414) * x + SPLIT_ONE_HALF;
    }
}

static unsigned char clamp_byte(int value) { return value < 0 ? 0 : value > 255 ? 255 : (unsigned char)value; }

// Whether the ordinary decoder would turn this file into RGB from YCbCr, with the three components at
// the same resolution: the files this splits. Reads the headers only.
static int splittable(const unsigned char *data, size_t length) {
    struct jpeg_decompress_struct info;
    SplitErrors errors;
    volatile int answer = 0;
    info.err = jpeg_std_error(&errors.manager);
    errors.manager.error_exit = split_error_exit;
    errors.manager.emit_message = split_emit_message;
    errors.manager.output_message = split_output_message;
    jpeg_create_decompress(&info);
    if (setjmp(errors.jump) == 0) {
        jpeg_mem_src(&info, data, (unsigned long)length);
        if (jpeg_read_header(&info, TRUE) == JPEG_HEADER_OK) {
            const jpeg_component_info *components = info.comp_info;
            answer = info.progressive_mode && !info.arith_code && info.data_precision == 8 &&
                     info.num_components == 3 && info.jpeg_color_space == JCS_YCbCr &&
                     components[1].h_samp_factor == components[0].h_samp_factor &&
                     components[2].h_samp_factor == components[0].h_samp_factor &&
                     components[1].v_samp_factor == components[0].v_samp_factor &&
                     components[2].v_samp_factor == components[0].v_samp_factor;
        }
    }
    jpeg_destroy_decompress(&info);
    return answer;
}

// What the ordinary loader keeps that later steps use: the ICC profile (converted to sRGB from), and the
// EXIF orientation, applied here as the ordinary loader's autorotate does. Takes over `image`.
static int carry_metadata(const void *data, size_t length, VipsImage *image, VipsImage **out) {
    VipsImage *header = vips_image_new_from_buffer(data, length, "", "access", VIPS_ACCESS_SEQUENTIAL, NULL);
    if (!header) {
        g_object_unref(image);
        return -1;
    }
    const void *profile;
    size_t profile_length;
    if (vips_image_get_typeof(header, VIPS_META_ICC_NAME) &&
        vips_image_get_blob(header, VIPS_META_ICC_NAME, &profile, &profile_length) == 0)
        vips_image_set_blob_copy(image, VIPS_META_ICC_NAME, profile, profile_length);
    int orientation = vips_image_get_orientation(header);
    g_object_unref(header);
    if (orientation <= 1) {
        *out = image;
        return 0;
    }
    vips_image_set_int(image, VIPS_META_ORIENTATION, orientation);
    int status = vips_autorot(image, out, NULL);
    g_object_unref(image);
    if (status != 0)
        *out = NULL;
    return status;
}

int cvips_load_progressive_jpeg_split(const void *data, size_t length, int shrink, VipsImage **out) {
    *out = NULL;
    if (shrink != 1 && shrink != 2 && shrink != 4 && shrink != 8)
        return -1;
    if (length > ULONG_MAX || !splittable(data, length))
        return -1;
    Layout *layout = malloc(sizeof(Layout));
    if (!layout)
        return -1;
    Part luma = {.shrink = shrink}, chroma = {.shrink = shrink};
    int status = -1;
    if (!split_layout(data, length, layout))
        goto done;
    luma.data = chroma.data = data;
    luma.layout = chroma.layout = layout;
    luma.wanted = 1u << 0;
    chroma.wanted = (1u << 1) | (1u << 2);

    pthread_t thread;
    if (pthread_create(&thread, NULL, decode_part_thread, &chroma) == 0) {
        decode_part(&luma);
        pthread_join(thread, NULL);
    } else {
        decode_part(&luma);
        decode_part(&chroma);
    }
    if (!luma.ok || !chroma.ok || luma.channels != 1 || chroma.channels != 2 || luma.width != chroma.width ||
        luma.height != chroma.height)
        goto done;

    // libjpeg rounds a scaled size up; libvips' loader keeps the whole pixels only (rounds down), and so
    // does this.
    int width = luma.width, height = luma.height;
    if (shrink > 1) {
        width = MAX(1, (int)(split_frame_width(data, layout) / shrink));
        height = MAX(1, (int)(split_frame_height(data, layout) / shrink));
        if (width > luma.width || height > luma.height)
            goto done;
    }
    VipsImage *image = vips_image_new_memory();
    vips_image_init_fields(image, width, height, 3, VIPS_FORMAT_UCHAR, VIPS_CODING_NONE,
                           VIPS_INTERPRETATION_sRGB, 1.0, 1.0);
    if (vips_image_write_prepare(image) != 0) {
        g_object_unref(image);
        vips_error_clear(); // ours: the ordinary loader decodes the file next, and says what is wrong if anything is
        goto done;
    }
    YCCTables tables;
    ycc_tables(&tables);
    for (int row = 0; row < height; row++) {
        unsigned char *rgb = VIPS_IMAGE_ADDR(image, 0, row);
        const unsigned char *brightness = luma.pixels + (size_t)row * luma.width;         // Y
        const unsigned char *colour = chroma.pixels + (size_t)row * chroma.width * 2;    // Cb, Cr
        for (int x = 0; x < width; x++) {
            int y = brightness[x], cb = colour[2 * x], cr = colour[2 * x + 1];
            rgb[3 * x] = clamp_byte(y + tables.cr_r[cr]);
            rgb[3 * x + 1] = clamp_byte(y + (int)((tables.cb_g[cb] + tables.cr_g[cr]) >> SPLIT_SCALEBITS));
            rgb[3 * x + 2] = clamp_byte(y + tables.cb_b[cb]);
        }
    }
    status = carry_metadata(data, length, image, out);
    if (status != 0)
        vips_error_clear(); // the same

done:
    free(luma.stream);
    free(chroma.stream);
    free(luma.pixels);
    free(chroma.pixels);
    free(layout);
    return status;
}

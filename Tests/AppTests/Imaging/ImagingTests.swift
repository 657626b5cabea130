import Testing

/// The image pipeline on its own (libvips through CVips), against photos made by
/// Tests/Fixtures/make_images.py and read back by exiftool and Pillow. Run one at a time: each
/// decode is CPU-heavy and the machine has two cores.
@Suite(.serialized) struct ImagingTests {}

// The value types the pipeline takes and returns (probe, renditions, errors, limits) live in
// ImagingTypes, which the server uses without linking libvips; Imaging's callers see them too.
@_exported import ImagingTypes

-- additive: a column with a default; older builds neither read nor write it (their photos get false,
-- shown as before).
-- A camera that writes no offset (`OffsetTimeOriginal`) gives its clock's reading in a zone nobody
-- knows; it is stored as if it were UTC, and marked here so that pages show it as written instead of
-- moving it into the viewer's zone (a photo taken at 12:34 was shown at 05:34 in Los Angeles, and a
-- New Year's photo under December). Photos stored before this are false until reprocessed.
ALTER TABLE photos ADD COLUMN taken_at_local boolean NOT NULL DEFAULT false;

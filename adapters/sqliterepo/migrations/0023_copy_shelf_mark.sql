-- A copy's own call number and shelving location, as a holdings file gave
-- them for its item ('' when the copy stands where its book's call number
-- says).
ALTER TABLE copies ADD COLUMN call_number TEXT NOT NULL DEFAULT '';
ALTER TABLE copies ADD COLUMN location TEXT NOT NULL DEFAULT '';

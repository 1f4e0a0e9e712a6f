-- Retire guideline version :id at :now (a policy update inserts the next version in the same
-- transaction); a version already closed is left as it is.
UPDATE guideline_memory SET valid_until = :now WHERE id = :id AND valid_until IS NULL

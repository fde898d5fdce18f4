-- Appends (serve --watch): a new transcript or new Inspect samples join an
-- experiment as a generation of their own that extends the experiment's
-- full import, its base. Such an imports row has base set; a full import
-- has base NULL. An append's rows are live while its base is.
ALTER TABLE imports ADD COLUMN base INTEGER;

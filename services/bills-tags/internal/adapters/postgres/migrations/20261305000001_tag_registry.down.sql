DROP TABLE IF EXISTS tag_values;

--bun:split

DROP TABLE IF EXISTS tag_dimensions;

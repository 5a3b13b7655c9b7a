DROP TABLE IF EXISTS dead_letters;
--bun:split
DROP TABLE IF EXISTS inbox;

DROP TABLE IF EXISTS export_versions;

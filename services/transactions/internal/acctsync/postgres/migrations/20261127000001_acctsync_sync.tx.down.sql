DROP TABLE IF EXISTS acctsync_sync_staged_accounts;
DROP TABLE IF EXISTS acctsync_syncs;

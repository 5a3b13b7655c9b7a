DROP TABLE IF EXISTS acctsync_account_map;
DROP TABLE IF EXISTS acctsync_accounts;
DROP TABLE IF EXISTS acctsync_connections;
DROP TABLE IF EXISTS acctsync_oauth_states;

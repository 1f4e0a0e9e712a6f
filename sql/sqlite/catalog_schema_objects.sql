-- Views and triggers of the schema: the sources the walled authorizer lets reach base_ tables.
SELECT name FROM sqlite_master WHERE type IN ('view', 'trigger')

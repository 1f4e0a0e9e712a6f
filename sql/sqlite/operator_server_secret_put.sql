-- Keep :secret as server secret :name unless one is kept already (the first writer wins).
INSERT INTO base_server_secret (name, secret) VALUES (:name, :secret)
ON CONFLICT (name) DO NOTHING

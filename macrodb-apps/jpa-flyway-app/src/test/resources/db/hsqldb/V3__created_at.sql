-- an audit column on a table that has rows: every replica gets the primary's timestamps
ALTER TABLE product ADD COLUMN created_at TIMESTAMP WITH TIME ZONE DEFAULT CURRENT_TIMESTAMP;

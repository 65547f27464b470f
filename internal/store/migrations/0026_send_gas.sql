-- What sponsored sends cost their gas sponsor: sponsor_org is the billing organization whose sponsor paid ('' for a
-- send its account paid), gas_cost_wei the gas used times its price (decimal), written once the send is included.
ALTER TABLE send_transactions ADD COLUMN sponsor_org TEXT NOT NULL DEFAULT '';
ALTER TABLE send_transactions ADD COLUMN gas_cost_wei TEXT NOT NULL DEFAULT '';
CREATE INDEX send_transactions_sponsored ON send_transactions (sponsor_org, status, updated_at);

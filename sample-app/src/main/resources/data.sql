-- Products 1-3 with stock 100, created when absent; an existing product keeps its stock.
INSERT INTO product (id, name, stock, last_fence) VALUES (1, 'Mechanical keyboard', 100, 0) ON CONFLICT DO NOTHING;
INSERT INTO product (id, name, stock, last_fence) VALUES (2, 'Noise-cancelling headphones', 100, 0) ON CONFLICT DO NOTHING;
INSERT INTO product (id, name, stock, last_fence) VALUES (3, 'Espresso machine', 100, 0) ON CONFLICT DO NOTHING;
-- Accounts 1-4 with 1000 each (a total of 4000), created when absent; an existing account keeps its balance.
INSERT INTO account (id, owner, balance, last_fence) VALUES (1, 'Ada', 1000, 0) ON CONFLICT DO NOTHING;
INSERT INTO account (id, owner, balance, last_fence) VALUES (2, 'Grace', 1000, 0) ON CONFLICT DO NOTHING;
INSERT INTO account (id, owner, balance, last_fence) VALUES (3, 'Linus', 1000, 0) ON CONFLICT DO NOTHING;
INSERT INTO account (id, owner, balance, last_fence) VALUES (4, 'Barbara', 1000, 0) ON CONFLICT DO NOTHING;

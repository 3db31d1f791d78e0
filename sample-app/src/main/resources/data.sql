-- Products 1-3 with stock 100, created when absent; an existing product keeps its stock.
INSERT INTO product (id, name, stock, last_fence) VALUES (1, 'Mechanical keyboard', 100, 0) ON CONFLICT DO NOTHING;
INSERT INTO product (id, name, stock, last_fence) VALUES (2, 'Noise-cancelling headphones', 100, 0) ON CONFLICT DO NOTHING;
INSERT INTO product (id, name, stock, last_fence) VALUES (3, 'Espresso machine', 100, 0) ON CONFLICT DO NOTHING;

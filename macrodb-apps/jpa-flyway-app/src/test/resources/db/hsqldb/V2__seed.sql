INSERT INTO product (name, price, stock) VALUES ('kettle', 29.90, 12);
INSERT INTO product (name, price, stock) VALUES ('teapot', 19.50, 3);
INSERT INTO product (name, price, stock) VALUES ('mug', 6.00, 40);

package io.macrodb.apps.shop;

import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

import java.math.BigDecimal;
import java.util.List;

/** The shop's service layer: read-only transactions for browsing, read-write ones for changes. */
@Service
public class Catalog {
    private final ProductRepository products;

    public Catalog(ProductRepository products) {
        this.products = products;
    }

    @Transactional
    public Product add(String name, BigDecimal price, int stock) {
        return products.save(new Product(name, price, stock));
    }

    /** Read-then-write in one transaction, as a JPA application does it (the entity is read, changed, flushed). */
    @Transactional
    public int sell(String name, int quantity) {
        Product p = products.findByName(name).orElseThrow();
        if (p.getStock() < quantity) throw new IllegalStateException("only " + p.getStock() + " of " + name);
        p.setStock(p.getStock() - quantity);
        return p.getStock();
    }

    @Transactional(readOnly = true)
    public List<Product> lowStock(int below) {
        return products.lowStock(below);
    }

    @Transactional(readOnly = true)
    public long count() {
        return products.count();
    }
}

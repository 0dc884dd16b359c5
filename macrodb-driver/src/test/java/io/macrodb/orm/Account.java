package io.macrodb.orm;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import jakarta.persistence.Version;

/** A JPA entity as an application would write it; nothing in it knows about MacroDB. */
@Entity
@Table(name = "jpa_account")
public class Account {
    @Id
    private int id;
    private String owner;
    private long balance;
    @Version
    private int version;

    protected Account() {}

    public Account(int id, String owner, long balance) {
        this.id = id;
        this.owner = owner;
        this.balance = balance;
    }

    public int getId() { return id; }
    public long getBalance() { return balance; }
    public void setBalance(long balance) { this.balance = balance; }
    public String getOwner() { return owner; }
}

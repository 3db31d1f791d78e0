package dev.distlock.docs.quickstart;

// tag::controller[]
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

@RestController
public class StockController {

    private final StockService stock;

    public StockController(StockService stock) {
        this.stock = stock;
    }

    @PostMapping("/stock/{productId}/deduct")
    public StockService.Deduction deduct(@PathVariable long productId, @RequestParam(defaultValue = "1") int quantity)
            throws InterruptedException {
        return stock.deduct(productId, quantity);
    }
}
// end::controller[]

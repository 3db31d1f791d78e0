package dev.distlock.sample.demo;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The sample page in a real browser: headless Chromium, driven through chromedriver by Selenium, against three
 * sample instances (one Redis, one H2 file database). Clicks the one button, then checks what a person would look
 * at: the run with the lock sold exactly the stock, and its timeline has holds from every instance, none
 * overlapping. Saves a screenshot of the page as {@code target/sample-page.png}.
 * <p>
 * Needs Debian's {@code chromium} and {@code chromium-driver} packages ({@code /usr/bin/chromium},
 * {@code /usr/bin/chromedriver}; other paths with {@code -Dsample.chromium=...} and {@code -Dsample.chromedriver=...});
 * without them the test is skipped, with the reason in the test report and on standard error. CI installs them
 * after its first build and runs this test again ({@code .ci/run}):
 *
 * <pre>./mvnw -B -pl sample-app -am verify -Dtest=SamplePageBrowserTests -Dsurefire.failIfNoSpecifiedTests=false</pre>
 */
class SamplePageBrowserTests {

    static final String CHROMIUM = System.getProperty("sample.chromium", "/usr/bin/chromium");

    static final String CHROMEDRIVER = System.getProperty("sample.chromedriver", "/usr/bin/chromedriver");

    private static final Logger log = LoggerFactory.getLogger(SamplePageBrowserTests.class);

    private static final int INSTANCES = 3;

    /** Enough to sell out twice over; fewer than the page's default, to keep the test short. */
    private static final int BUYERS = 200;

    @TempDir
    static Path dataDir;

    @TempDir
    static Path browserProfile;

    private static SampleInstances instances;

    private static WebDriver browser;

    private static final String MISSING = "Skipped the sample page browser test: " + CHROMIUM + " and " + CHROMEDRIVER
            + " are needed (Debian: apt-get install chromium chromium-driver)";

    private static boolean browserInstalled() {
        return Files.isExecutable(Path.of(CHROMIUM)) && Files.isExecutable(Path.of(CHROMEDRIVER));
    }

    @BeforeAll
    static void startInstancesAndBrowser() {
        if (!browserInstalled()) {
            // Not an assumption here: the test itself reports the skip, so that it counts as skipped, not absent.
            log.warn(MISSING);
            return;
        }
        instances = SampleInstances.start(INSTANCES, dataDir);
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM);
        // How Chromium must run on these machines: headless, as root without the sandbox, and without any
        // background connection (the network is closed), with a profile of its own.
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-dev-shm-usage", "--user-data-dir=" + browserProfile, "--window-size=1280,1000");
        // An explicit driver, so that Selenium Manager never tries to download one.
        ChromeDriverService driver = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File(CHROMEDRIVER)).usingAnyFreePort().build();
        browser = new ChromeDriver(driver, options);
    }

    @AfterAll
    static void stopBrowserAndInstances() {
        if (browser != null) {
            browser.quit();
        }
        if (instances != null) {
            instances.close();
        }
    }

    @Test
    void theButtonSellsWithAndWithoutTheLockAndTheTimelineShowsEveryInstanceWithoutOverlap() throws IOException {
        assumeTrue(browserInstalled(), MISSING);
        long start = System.nanoTime();
        browser.get(instances.url(0) + "/");
        WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(10));
        wait.until(ExpectedConditions.attributeToBe(By.id("instances"), "data-live", String.valueOf(INSTANCES)));
        Set<String> instanceIds = browser.findElements(By.cssSelector("#instances .chip")).stream()
                .map(chip -> chip.getDomAttribute("data-instance")).collect(Collectors.toSet());
        assertThat(instanceIds).hasSize(INSTANCES);
        // One of them leads the order consumer's group and is marked; the store is healthy.
        wait.until(ExpectedConditions.numberOfElementsToBe(By.cssSelector("#instances .chip.leader"), 1));
        wait.until(ExpectedConditions.textToBe(By.id("store-health"), "UP"));

        WebElement buyersField = browser.findElement(By.id("buyers"));
        buyersField.clear();
        buyersField.sendKeys(String.valueOf(BUYERS));
        browser.findElement(By.id("run")).click();
        // Both runs, and every hold of both written by the instances and drawn (the page reads until they are).
        WebDriverWait sale = new WebDriverWait(browser, Duration.ofSeconds(45));
        sale.until(ExpectedConditions.attributeToBe(By.id("timeline-locked"), "data-complete", "true"));
        sale.until(ExpectedConditions.attributeToBe(By.id("timeline-unlocked"), "data-complete", "true"));
        sale.until(ExpectedConditions.elementToBeClickable(By.id("run")));

        WebElement locked = browser.findElement(By.id("result-locked"));
        assertThat(field(locked, "sold")).isEqualTo("100");
        assertThat(field(locked, "oversold")).isEqualTo("0");
        assertThat(field(locked, "remaining")).isEqualTo("0");

        List<Bar> bars = holds("timeline-locked");
        List<Bar> buyers = bars.stream().filter(b -> !b.outcome().equals("restock")).toList();
        assertThat(buyers).as("one hold per buyer: sold or sold out").hasSize(BUYERS);
        assertThat(buyers).extracting(Bar::instance).as("bars from every instance")
                .containsOnlyElementsOf(instanceIds).contains(instanceIds.toArray(String[]::new));
        assertThat(bars).noneMatch(Bar::red);
        List<Bar> byStart = bars.stream().sorted(Comparator.comparingLong(Bar::start)).toList();
        for (int i = 1; i < byStart.size(); i++) {
            assertThat(byStart.get(i).start()).as("no two holders at once: %s after %s", byStart.get(i),
                    byStart.get(i - 1)).isGreaterThanOrEqualTo(byStart.get(i - 1).end());
        }
        List<WebElement> tokenLabels = browser.findElements(By.cssSelector("#timeline-locked g.detail text.token"));
        assertThat(tokenLabels).as("the close-up labels holds with their fencing tokens").isNotEmpty();
        assertThat(labelledTokens(tokenLabels)).as("the labels read in the tokens' order, left to right").isSorted();

        WebElement unlocked = browser.findElement(By.id("result-unlocked"));
        List<Bar> unlockedBars = holds("timeline-unlocked");
        log.info("Page without the lock: sold {}, oversold {}, {} of {} holds red (overlapping)",
                field(unlocked, "sold"), field(unlocked, "oversold"), unlockedBars.stream().filter(Bar::red).count(),
                unlockedBars.size());
        assertThat(Integer.parseInt(field(unlocked, "oversold"))).isNotNegative();

        // Fail closed, as the page shows it: the embedded Redis frozen while 12 buyers come to both instances. Each
        // gets 503 and none is sold; once Redis is back, the next three are.
        browser.findElement(By.id("run-fail-closed")).click();
        new WebDriverWait(browser, Duration.ofSeconds(60))
                .until(ExpectedConditions.textToBe(By.id("fail-closed-status"), "Done."));
        WebElement failClosed = browser.findElement(By.id("fail-closed-result"));
        assertThat(field(failClosed, "refused")).isEqualTo("12 / 12");
        assertThat(field(failClosed, "sold-while-frozen")).isEqualTo("0");
        assertThat(field(failClosed, "sold-once-back")).isEqualTo("3");
        log.info("Page's fail-closed demo: {}", failClosed.findElement(By.className("details")).getText());

        Path screenshot = screenshot();

        // The second instance's page: it joined the first one's Redis, so its fail-closed button says who can freeze
        // it. (The freeze itself is DemoApiTests'.)
        browser.get(instances.url(1) + "/");
        browser.findElement(By.id("run-fail-closed")).click();
        wait.until(ExpectedConditions.textMatches(By.id("fail-closed-status"),
                java.util.regex.Pattern.compile("Not run: .*did not start the embedded Redis")));
        log.info("Sample page browser test: {} ms from page load to checked; screenshot {}",
                Duration.ofNanos(System.nanoTime() - start).toMillis(), screenshot.toAbsolutePath());
    }

    /**
     * @return the tokens the labels show, in the labels' order from left to right: a short label's trailing digits,
     *         a full token's as many trailing digits (the tokens in view share the rest)
     */
    private static List<Long> labelledTokens(List<WebElement> labels) {
        int digits = labels.stream().map(WebElement::getText).filter(text -> text.startsWith("…"))
                .mapToInt(text -> text.length() - 1).max().orElse(Integer.MAX_VALUE);
        return labels.stream().sorted(Comparator.comparingDouble(label -> Double.parseDouble(label.getDomAttribute("x"))))
                .map(label -> label.getText().replace("…", ""))
                .map(text -> Long.parseLong(text.substring(Math.max(0, text.length() - digits)))).toList();
    }

    private static String field(WebElement card, String name) {
        return card.findElement(By.cssSelector("[data-field='" + name + "']")).getText().lines()
                .reduce((first, second) -> second).orElse("").trim();
    }

    /** Every hold of a timeline's whole-window strip, read in one script call. */
    @SuppressWarnings("unchecked")
    private static List<Bar> holds(String timeline) {
        List<Map<String, Object>> raw = (List<Map<String, Object>>) ((JavascriptExecutor) browser).executeScript(
                "return Array.from(document.querySelectorAll(arguments[0])).map(r => ({"
                        + "instance: r.getAttribute('data-instance'), start: r.getAttribute('data-start'),"
                        + "end: r.getAttribute('data-end'), outcome: r.getAttribute('data-outcome'),"
                        + "red: r.classList.contains('overlap')}))",
                "#" + timeline + " g.overview rect.hold");
        List<Bar> bars = new ArrayList<>();
        for (Map<String, Object> r : raw) {
            bars.add(new Bar((String) r.get("instance"), Long.parseLong((String) r.get("start")),
                    Long.parseLong((String) r.get("end")), (String) r.get("outcome"), (Boolean) r.get("red")));
        }
        return bars;
    }

    /** The whole page, not only the window: Chrome's own full-page capture, through chromedriver. */
    @SuppressWarnings("unchecked")
    private static Path screenshot() throws IOException {
        ChromeDriver chrome = (ChromeDriver) browser;
        Map<String, Object> size = (Map<String, Object>) chrome.executeCdpCommand("Page.getLayoutMetrics", Map.of())
                .get("cssContentSize");
        Map<String, Object> clip = Map.of("x", 0, "y", 0, "width", size.get("width"), "height", size.get("height"),
                "scale", 1);
        String png = (String) chrome.executeCdpCommand("Page.captureScreenshot",
                Map.of("format", "png", "captureBeyondViewport", true, "clip", clip)).get("data");
        Path target = Path.of("target", "sample-page.png");
        Files.createDirectories(target.getParent());
        Files.write(target, Base64.getDecoder().decode(png));
        return target;
    }

    /** A hold as the page drew it: instance, body start and end (µs), outcome, and whether it is red. */
    private record Bar(String instance, long start, long end, String outcome, boolean red) {
    }
}

package dev.distlock.annotation;

import java.util.Map;
import java.util.Objects;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.aop.Advisor;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.core.Ordered;
import org.springframework.transaction.interceptor.TransactionInterceptor;

/**
 * Warns at start-up when the lock advice is ordered inside Spring's transaction advice: the lock would then be
 * released before the transaction commits, and another instance could take it and read the data as it was before
 * the commit.
 */
public class TransactionOrderVerifier implements SmartInitializingSingleton {

    private static final Logger logger = LoggerFactory.getLogger(TransactionOrderVerifier.class);

    private final ListableBeanFactory beanFactory;

    private final DistributedLockAdvisor lockAdvisor;

    /**
     * @param beanFactory where to find the transaction advisor
     * @param lockAdvisor the lock advisor
     */
    public TransactionOrderVerifier(ListableBeanFactory beanFactory, DistributedLockAdvisor lockAdvisor) {
        this.beanFactory = Objects.requireNonNull(beanFactory, "beanFactory");
        this.lockAdvisor = Objects.requireNonNull(lockAdvisor, "lockAdvisor");
    }

    @Override
    public void afterSingletonsInstantiated() {
        Map<String, Advisor> advisors = beanFactory.getBeansOfType(Advisor.class, false, false);
        for (Advisor advisor : advisors.values()) {
            if (advisor.getAdvice() instanceof TransactionInterceptor) {
                int transactionOrder = (advisor instanceof Ordered ordered) ? ordered.getOrder()
                        : Ordered.LOWEST_PRECEDENCE;
                if (lockAdvisor.getOrder() >= transactionOrder) {
                    logger.warn("The @DistributedLock advice (distlock.aspect-order=" + lockAdvisor.getOrder()
                            + ") runs inside the transaction advice (order " + transactionOrder + "): locks are "
                            + "released before their transaction commits, so another instance can take the lock "
                            + "and read data from before the commit. Set distlock.aspect-order lower than "
                            + transactionOrder + " to take the lock outside the transaction.");
                }
            }
        }
    }
}

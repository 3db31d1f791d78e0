package dev.distlock.redis;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** {@code distlock.replication.min-replicas}: its values, what each waits for, and the message on a bad one. */
class MinReplicasTests {

    @Test
    void autoIsTheDefaultAndWaitsForOneReplicaOnlyWhenTheMasterHasOne() {
        assertThat(RedisLockConfig.defaults().minReplicas()).isEqualTo(MinReplicas.AUTO);
        assertThat(MinReplicas.parse(" Auto ")).isEqualTo(MinReplicas.AUTO);
        assertThat(MinReplicas.AUTO.required(0)).isZero();
        assertThat(MinReplicas.AUTO.required(1)).isEqualTo(1);
        assertThat(MinReplicas.AUTO.required(2)).isEqualTo(1);
        assertThat(MinReplicas.AUTO.isOff()).isFalse();
        assertThat(MinReplicas.AUTO).hasToString("auto");
    }

    @Test
    void aNumberIsWaitedForWhateverTheMasterListsAndZeroTurnsItOff() {
        assertThat(MinReplicas.parse("2").required(0)).isEqualTo(2);
        assertThat(MinReplicas.parse("0").isOff()).isTrue();
        assertThat(MinReplicas.parse("0").required(3)).isZero();
        assertThat(MinReplicas.of(1)).hasToString("1");
    }

    @Test
    void aBadValueNamesTheProperty() {
        assertThatIllegalArgumentException().isThrownBy(() -> MinReplicas.parse("two"))
                .withMessageContaining("distlock.replication.min-replicas").withMessageContaining("'two'");
        assertThatIllegalArgumentException().isThrownBy(() -> MinReplicas.parse("-1"))
                .withMessageContaining("distlock.replication.min-replicas");
    }

    @Test
    void onlyReplicasOnlineCount() {
        String info = "# Replication\r\nrole:master\r\nconnected_slaves:2\r\n"
                + "slave0:ip=127.0.0.1,port=7001,state=online,offset=220,lag=0\r\n"
                + "slave1:ip=127.0.0.1,port=7002,state=wait_bgsave,offset=0,lag=0\r\n"
                + "master_failover_state:no-failover\r\n";
        assertThat(LettuceNode.onlineReplicas(info)).isEqualTo(1);
        assertThat(LettuceNode.onlineReplicas("# Replication\r\nrole:master\r\nconnected_slaves:0\r\n")).isZero();
    }
}

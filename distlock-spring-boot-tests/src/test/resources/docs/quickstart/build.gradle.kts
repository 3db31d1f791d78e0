dependencies {
    implementation(platform("dev.distlock:distlock-bom:0.1.0-SNAPSHOT"))
    implementation("dev.distlock:distlock-spring-boot-starter")
    implementation("org.springframework.boot:spring-boot-starter-web")
    implementation("org.springframework.boot:spring-boot-starter-actuator")
}

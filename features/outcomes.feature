@outcome
Feature: 3-D Secure outcomes as the real service names them
  Each way a card payment can end, with the code and the authentication
  level the real service gives it: paid without a challenge (2F) or after
  one (2C); refused by a failed authentication (8027), by the issuer
  (8028), by a fault of the issuer's authentication server (8029) or its
  time-out (8038); abandoned by the buyer (1143); declined after the
  authentication for want of credit (251) or as expired (433). The real
  service publishes no test cards for these outcomes, so a target declares
  its own in [cards.*], and the scenario of a card it does not declare is
  skipped, saying so. The detail is read with payment/detail, which a
  target offers in [lifecycle].

  Background:
    Given a payment created by the merchant

  @reference @req:REF-OUT-01 @card:frictionless_authenticated @lifecycle @detail
  Scenario: A card the issuer authenticates without a challenge is paid at once, frictionless
    When the buyer pays with the card the issuer authenticates without a challenge
    Then the transaction result is "OK"
    When the merchant reads the detail of the payment the buyer paid
    Then the detail's transaction result is "OK"
    And the detail's authentication level is "2F"

  @reference @req:REF-OUT-02 @issuer @lifecycle @detail
  Scenario: A buyer who passes the issuer's challenge pays, authenticated by the challenge
    When the buyer pays with the card enrolled in 3-D Secure
    And the buyer completes the issuer authentication
    Then the buyer lands on the merchant's success page
    When the merchant reads the detail of the payment the buyer paid
    Then the detail's transaction result is "OK"
    And the detail's authentication level is "2C"

  @reference @req:REF-OUT-03 @card:authentication_failed @issuer @failure-page @lifecycle @detail
  Scenario: A failed authentication ends the payment with 8027
    When the buyer pays with the card whose authentication fails
    Then the transaction error code is "8006"
    When the buyer completes the issuer authentication
    Then the buyer lands on the merchant's failure page
    When the merchant reads the detail of the payment the buyer paid
    Then the detail's transaction result is "KO"
    And the detail's transaction error code is "8027"

  @reference @req:REF-OUT-04 @card:issuer_rejected
  Scenario: An issuer that rejects the authentication refuses the payment at submit with 8028
    When the buyer pays with the card whose issuer rejects the authentication
    Then the transaction result is "KO"
    And the transaction error code is "8028"

  @reference @req:REF-OUT-05 @card:acs_technical_problem
  Scenario: A fault of the issuer's authentication server refuses the payment at submit with 8029
    When the buyer pays with the card whose issuer's authentication server fails
    Then the transaction result is "KO"
    And the transaction error code is "8029"

  @reference @req:REF-OUT-06 @card:acs_timeout @issuer @failure-page @lifecycle @detail
  Scenario: An authentication server that times out ends the payment with 8038
    When the buyer pays with the card whose issuer's authentication server times out
    Then the transaction error code is "8006"
    When the buyer completes the issuer authentication
    Then the buyer lands on the merchant's failure page
    When the merchant reads the detail of the payment the buyer paid
    Then the detail's transaction result is "KO"
    And the detail's transaction error code is "8038"

  @reference @req:REF-OUT-07 @issuer @failure-page @lifecycle @detail
  Scenario: A buyer who abandons at the issuer ends the payment with 1143
    When the buyer pays with the card enrolled in 3-D Secure
    And the buyer cancels the issuer authentication
    Then the buyer lands on the merchant's failure page
    When the merchant reads the detail of the payment the buyer paid
    Then the detail's transaction result is "KO"
    And the detail's transaction error code is "1143"

  @reference @req:REF-OUT-08 @card:insufficient_credit
  Scenario: A card without enough credit is declined after its authentication with 251
    When the buyer pays with the card without enough credit
    Then the transaction result is "KO"
    And the transaction error code is "251"

  @reference @req:REF-OUT-09 @card:card_expired
  Scenario: A card its issuer says has expired is declined after its authentication with 433
    When the buyer pays with the card the issuer says has expired
    Then the transaction result is "KO"
    And the transaction error code is "433"

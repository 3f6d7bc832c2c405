@resilience
Feature: What a payment service must survive
  Opt-in (--tags @robustness): retries of the merchant's server arriving
  together, payments of many buyers at once, and input nobody tried. Each
  check rests on a reading of the contract written beside its requirement:
  one payment process per transaction, and the envelope in every response.
  The sizes come from the target file's [robustness] settings; generated
  bodies follow from the run's seed, which every such run prints.

  @robustness @req:ROB-01
  Scenario: Submits of one token arriving together execute the payment at most once
    Given a payment created by the merchant
    When the buyer's payment is submitted by many requests at once
    Then at most one of those answers executes the payment

  @robustness @req:ROB-02
  Scenario: A paid token submitted again executes nothing
    Given a payment created by the merchant
    When the buyer pays with the card not enrolled in 3-D Secure
    Then the payment is executed
    When the buyer pays again with the same payment token
    Then the answer executes nothing

  @robustness @req:ROB-02
  Scenario: A token waiting for issuer authentication submitted again executes nothing
    Given a payment created by the merchant
    When the buyer pays with the card enrolled in 3-D Secure
    Then the transaction error code is "8006"
    When the buyer pays again with the same payment token
    Then the answer executes nothing: asking again for the issuer authentication still awaited is no execution

  @robustness @req:ROB-03
  Scenario: Payments of many buyers at once each keep their own token and payment ID
    When many buyers each pay a payment of their own at once
    Then each payment has its own token and payment ID
    And each submit answers its own payment's ID

  @robustness @req:ROB-04 @production-safe
  Scenario: Generated hostile bodies to create are each answered with the envelope
    When the merchant sends generated hostile bodies to create
    Then every answer is JSON with the envelope, within the timeout

  @robustness @req:ROB-04
  Scenario: Generated hostile bodies to submit are each answered with the envelope and pay nothing
    Given a payment created by the merchant
    When the buyer's payment is submitted with generated hostile bodies
    Then every answer is JSON with the envelope, within the timeout, and none pays

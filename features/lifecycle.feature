@lifecycle
Feature: The payment's life after submit
  A merchant confirms a payment's outcome with payment/detail, settles it
  with a capture (or the service settles it by itself), cancels it before
  settlement, and refunds settled money: the real service's operations,
  which the contract says only exist. A target opts in to these scenarios
  with [lifecycle] in its target file, naming the operations it offers and
  how its shops settle.

  @reference @req:REF-LIFE-01 @detail
  Scenario: The detail of a paid payment says it is authorised, from its first event
    Given a payment paid with the card not enrolled in 3-D Secure
    When the merchant reads the payment's detail by its payment ID
    Then the detail's transaction result is "OK"
    And the detail names the payment
    And the payment's state is one of "AUT, MOV"
    And the payment's first event is an authorization of its amount

  @reference @req:REF-LIFE-02 @detail
  Scenario: A payment is found by the merchant's own reference
    Given a payment paid with the card not enrolled in 3-D Secure
    When the merchant looks the payment up by its shop transaction ID
    Then the detail names the payment

  @reference @req:REF-LIFE-03 @detail @capture @separated
  Scenario: A shop that settles separately captures part of an authorised payment
    Given a payment paid with the card not enrolled in 3-D Secure at the shop that settles separately
    When the merchant captures part of the payment
    Then the operation is done
    When the merchant reads the payment's detail by its payment ID
    Then the payment's state is "MOV"
    And the payment's last event is of that amount

  @reference @req:REF-LIFE-04 @capture @separated
  Scenario: A capture above the authorised amount is refused
    Given a payment paid with the card not enrolled in 3-D Secure at the shop that settles separately
    When the merchant captures more than the payment's amount
    Then the operation is refused with one of the codes "8014, 58"

  @reference @req:REF-LIFE-05 @detail @cancel @separated
  Scenario: An authorised payment is cancelled before settlement
    Given a payment paid with the card not enrolled in 3-D Secure at the shop that settles separately
    When the merchant cancels the payment
    Then the operation is done
    When the merchant reads the payment's detail by its payment ID
    Then the payment's state is "CAN"

  @reference @req:REF-LIFE-06 @capture @cancel @separated
  Scenario: A captured payment is not cancelled
    Given a payment paid with the card not enrolled in 3-D Secure at the shop that settles separately
    When the merchant captures the whole payment
    And the merchant cancels the payment
    Then the operation is refused with one of the codes "2017"

  @reference @req:REF-LIFE-07 @detail @capture @refund @separated
  Scenario: Settled money is refunded in parts, never beyond what was settled
    Given a payment paid with the card not enrolled in 3-D Secure at the shop that settles separately
    When the merchant captures the whole payment
    And the merchant refunds part of the payment
    Then the operation is done
    When the merchant refunds more than is left of the payment
    Then the operation is refused with one of the codes "2014, 8015"
    When the merchant refunds what is left of the payment
    Then the operation is done
    When the merchant reads the payment's detail by its payment ID
    Then the payment's state is "STO"

  @reference @req:REF-LIFE-08 @refund @separated
  Scenario: A payment never settled is not refunded
    Given a payment paid with the card not enrolled in 3-D Secure at the shop that settles separately
    When the merchant refunds part of the payment
    Then the operation is refused with one of the codes "8016"

  @reference @req:REF-LIFE-09 @detail @refund @unified
  Scenario: A shop that settles by itself settles a paid payment, which is then refunded
    Given a payment paid with the card not enrolled in 3-D Secure at the shop that settles by itself
    Then the payment is settled by the service within the target's settlement time
    When the merchant refunds the whole payment
    Then the operation is done

  @robustness @req:ROB-06 @capture @refund @separated
  Scenario: Refunds arriving together never exceed what was settled
    Given a payment paid with the card not enrolled in 3-D Secure at the shop that settles separately
    When the merchant captures the whole payment
    And the merchant refunds more than half of the settled payment by many requests at once
    Then the refunds done add up to at most the settled amount

  @robustness @req:ROB-07 @capture @cancel @separated
  Scenario: A capture and a cancel arriving together leave exactly one done
    Given a payment paid with the card not enrolled in 3-D Secure at the shop that settles separately
    When the merchant captures and cancels the payment at once
    Then exactly one of the capture and the cancel is done

  @reference @req:REF-LIFE-10 @detail @tokens
  Scenario: A card token asked for at submit pays the next payment with the token alone
    Given a payment created by the merchant
    When the buyer pays with the card not enrolled in 3-D Secure, asking for a card token
    And the merchant reads the detail of the payment the buyer paid
    Then the detail holds the card token, keeping the card's first six and last four digits
    When the merchant creates a payment
    And the buyer pays the new payment with the card token alone
    Then the transaction result is "OK"

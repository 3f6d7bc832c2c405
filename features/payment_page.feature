@payment-page
Feature: The standard payment page
  With the standard payment page, the buyer pays on the service's own page
  (in the lightbox, the overlay the merchant's page opens) instead of the
  merchant's server calling payment/submit. The contract gives the page no
  address: these scenarios run when the target file declares its
  [payment_page], and are skipped, saying so, when it does not.

  Background:
    Given a payment created by the merchant

  @core @req:PAGE-01 @success-page
  Scenario: A card not enrolled in 3-D Secure, paid on the payment page, lands on the success page
    When the buyer pays on the payment page with the card not enrolled in 3-D Secure
    Then the buyer lands on the merchant's success page

  @core @req:PAGE-02 @success-page @issuer
  Scenario: A card enrolled in 3-D Secure, paid on the payment page, goes through issuer authentication to the success page
    When the buyer pays on the payment page with the card enrolled in 3-D Secure, completing the issuer authentication
    Then the buyer lands on the merchant's success page

  @core @req:PAGE-03 @success-page @alternative-method
  Scenario: An alternative method, approved, lands on the success page with no payment/submit
    When the buyer chooses the alternative method on the payment page and approves the payment
    Then the buyer lands on the merchant's success page

  @reference @req:REF-PAGE-01 @declined-card @failure-page
  Scenario: A declined card, paid on the payment page, lands on the failure page
    When the buyer pays on the payment page with the declined card
    Then the buyer lands on the merchant's failure page

  @reference @req:REF-PAGE-02 @success-page
  Scenario: After the payment page has paid, the merchant's submit of the same token is refused as already processed
    When the buyer pays on the payment page with the card not enrolled in 3-D Secure
    And the merchant's server submits the payment's token with the card not enrolled in 3-D Secure
    Then the request is refused with HTTP 400 and code "1137"

  @reference @req:REF-PAGE-03
  Scenario: The payment page of a payment the service does not hold offers nothing to pay
    When the buyer opens the payment page of a payment the service does not hold
    Then the payment page refuses it and offers no card form

  @robustness @req:ROB-05 @declined-card @lifecycle @detail
  Scenario: Two presses of pay at once execute the payment at most once
    When the buyer presses pay twice at once on the payment page, with the card not enrolled in 3-D Secure and with the declined card
    Then the service records at most one authorization of each payment pressed

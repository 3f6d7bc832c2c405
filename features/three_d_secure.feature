@three-d-secure
Feature: 3-D Secure issuer authentication
  A card enrolled in 3-D Secure is not paid at submit: the buyer must first
  authenticate with the issuing bank at the address submit answers with,
  and then lands on the merchant's success page.

  Background:
    Given a payment created by the merchant

  @core @req:TDS-01 @req:TDS-02 @req:TDS-03 @req:SUBMIT-01 @req:SUBMIT-03
  Scenario: A card enrolled in 3-D Secure asks for issuer authentication
    When the buyer pays with the card enrolled in 3-D Secure
    Then the request is correctly processed
    And the transaction type is "submit"
    And the transaction result is empty
    And the transaction error code is "8006"
    And the transaction error description is not empty
    And the payment ID is the one create returned
    And the redirect address is an absolute or scheme-relative http(s) address
    And the redirect address is not the merchant's success page

  @core @req:TDS-04 @issuer
  Scenario: The buyer who completes issuer authentication lands on the success page
    When the buyer pays with the card enrolled in 3-D Secure
    And the buyer completes the issuer authentication
    Then the buyer lands on the merchant's success page

  @reference @req:REF-3DS-01 @req:REF-ENV-01
  Scenario: The issuer address is on the service's host and names the shop and the payment
    When the buyer pays with the card enrolled in 3-D Secure
    Then the answer has HTTP status 200
    And the transaction error description is "Verify By Visa"
    And the redirect address is on the service's own host
    And the redirect address carries the shop login and the payment token as query values

  @reference @req:REF-3DS-02 @issuer @failure-page
  Scenario: A wrong one-time code lands the buyer on the failure page
    When the buyer pays with the card enrolled in 3-D Secure
    And the buyer answers the issuer authentication with the one-time code "000000"
    Then the buyer lands on the merchant's failure page

  @reference @req:REF-3DS-03 @issuer @failure-page
  Scenario: A buyer who cancels at the issuer lands on the failure page
    When the buyer pays with the card enrolled in 3-D Secure
    And the buyer cancels the issuer authentication
    Then the buyer lands on the merchant's failure page

  @reference @req:REF-PAY-04 @req:REF-PAY-01 @issuer
  Scenario: After authentication the buyer goes to the success address passed to submit
    When the buyer pays with the card enrolled in 3-D Secure, returning to "https://shop.example/thanks" or "https://shop.example/sorry"
    And the buyer completes the issuer authentication
    Then the buyer lands on "https://shop.example/thanks"
    When the buyer pays again with the same payment token
    Then the request is refused with HTTP 400 and code "1137"
